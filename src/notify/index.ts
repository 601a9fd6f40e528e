// The notify stage's door: webhook events for drift, failures, refusals, scheduled deletes and the
// manifest's validity.
export {
  eventsOfRun,
  manifestEvent,
  type NotifyEvent,
  type NotifyKind,
  type RunFacts,
  runEvent,
} from './events.js';
export { Notifier, type NotifierOptions } from './notifier.js';
