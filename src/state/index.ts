export { type LoadedState, loadState, saveState } from './file.js';
export {
  isProtected,
  type LifecycleUpdate,
  markProtected,
  pendingSince,
  recordLifecycle,
} from './lifecycle.js';
export * from './state.js';
