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
export { type LockOptions, lockState, type StateLock, StateLockError } from './lock.js';
export {
  notRegular,
  notRegularMessage,
  openPrivateFile,
  refuseNotRegular,
  whereItLands,
} from './private-file.js';
export * from './state.js';
