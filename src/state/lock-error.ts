/**
 * The state's files cannot be used: another run holds the lock, or a path the tool writes (the state,
 * the backup file, a saved plan) is a directory, a device, a FIFO or a socket. Nothing was sent.
 */
export class StateLockError extends Error {}
