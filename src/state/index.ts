export {
  appendBackup,
  type BackupEntry,
  backupEntryOf,
  backupPathFor,
  checkBackupPath,
  DEFAULT_BACKUP_NAME,
  type ReadBackups,
  readBackups,
} from './backup-file.js';
export { accountsOf, ofAccounts } from './contents.js';
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
  canonicalBaseUrl,
  type LoadedState,
  loadState,
  sameBaseUrl,
  saveState,
  writePrivateFileAtomically,
} from './file.js';
export { BACKUP_FILE, STATE_FILE } from './file-limits.js';
export { describeHeld, heldMessage } from './holder.js';
export {
  isProtected,
  type LifecycleUpdate,
  markProtected,
  pendingSince,
  type RekeyedFingerprint,
  recordLifecycle,
} from './lifecycle.js';
export { LOCK_STALE_MS, type LockOptions, lockState, type StateLock, StateLockError } from './lock.js';
export { describeHolder, type LockHolder } from './lock-holder.js';
export { type Notified, sentPathFor } from './notified.js';
export {
  isPostgresUrl,
  openStateStore,
  passwordsInText,
  type StateLocationOptions,
  shownLocation,
  stateSecrets,
} from './open.js';
export {
  beside,
  landingOf,
  openForReading,
  openForWriting,
  openPrivateFile,
  PathChanged,
  readRegularFile,
  readRegularText,
  refuseNotRegular,
  refusePlanted,
  whereItLands,
} from './private-file.js';
export * from './state.js';
export type {
  DoubtfulProtections,
  HeldBy,
  Leadership,
  LockRequest,
  MissingState,
  ReadOptions,
  ReadResult,
  StateAccess,
  StateSession,
  StateStore,
  StoreContents,
  StoredState,
} from './store-types.js';
