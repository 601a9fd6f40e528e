export {
  type HeldLifecycle,
  inspectHeld,
  isDoubtful,
  keepAside,
  keptCopies,
  type ProtectionDoubt,
  protectionsNotInForce,
} from './discarded.js';
export {
  type LoadedState,
  loadState,
  sameBaseUrl,
  saveState,
  writePrivateFileAtomically,
} from './file.js';
export {
  isProtected,
  type LifecycleUpdate,
  markProtected,
  pendingSince,
  recordLifecycle,
} from './lifecycle.js';
export { LOCK_STALE_MS, type LockOptions, lockState, type StateLock, StateLockError } from './lock.js';
export { describeHolder, type LockHolder } from './lock-holder.js';
export {
  notRegular,
  notRegularMessage,
  openPrivateFile,
  refuseNotRegular,
  whereItLands,
} from './private-file.js';
export * from './state.js';
