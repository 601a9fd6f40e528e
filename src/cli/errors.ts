// The few errors the command line maps to exit codes; everything else is exit 1 with its message.

export const EXIT = { ok: 0, error: 1, changes: 2, refused: 3 } as const;

/** Bad command-line input or configuration: a message saying what is allowed, exit 1. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A failure already reported to the user; only its exit code remains to be returned. */
export class ExitError extends Error {
  override name = 'ExitError';
  constructor(
    readonly code: number,
    message = '',
  ) {
    super(message);
  }
}
