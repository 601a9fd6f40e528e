// The backup stage's door: the settings of every deleted website, written before the delete, and read
// back by `restore`.
export {
  appendBackup,
  type BackupEntry,
  backupEntryOf,
  backupPathFor,
  checkBackupPath,
  DEFAULT_BACKUP_NAME,
  type ReadBackups,
  readBackups,
} from './file.js';
