import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { Logger } from 'pino';
import { type KeyRefusal, readApiKeyFile, type WebsiteService } from '../service/index.js';

// An API key is rotated by regenerating it in the service's web interface, which ends the old one at
// once; in Kubernetes the new one then arrives in the key file (a Secret's volume, whose `..data`
// symlink the kubelet swaps; a bind mount rewritten in place). A daemon reading its key from a file
// reads it again before a run: always once the service refused the key, else when the file changed
// (stat), and builds a new client for a new key. A key the service refused and the file still holds is
// not sent again: the run says so instead, once per run. A key in the environment cannot change: the
// message says to restart. The key replaced stays known, for the life of the process, as a previous key:
// fingerprints recorded with it are recognised (nothing is resent), and recorded again with the new one.

/** A client of the service with one key, and the secret derived from it (fingerprints). */
export interface ServiceConnection {
  service: WebsiteService;
  secret: string;
  /** The secrets of keys used before this one (`--previous-api-key-file`): fingerprints only. */
  previousSecrets?: readonly string[];
}

/** Where the daemon's key comes from when it is a file, and how a client is built for a new key. */
export interface KeyFileOptions {
  path: string;
  /** `--api-key-file` or WEBSITES_SYNC_API_KEY_FILE, whichever named the file. */
  source: string;
  /** The key the first client uses (only compared with what the file holds later; never shown). */
  apiKey: string;
  /**
   * A client for a new key read from the file (checked first), in place of the one in use: no run
   * uses that one any more (the caller, which built it, closes it).
   */
  reconnect(apiKey: string): ServiceConnection;
}

/** What to do when the service refuses the key part-way, for the key's source (a sentence). */
export function keyAdvice(keyFile: Pick<KeyFileOptions, 'path' | 'source'> | undefined): string {
  if (!keyFile) {
    return 'Restart the daemon with the new key in WEBSITES_SYNC_API_KEY: a key given in the environment is read only at start (--api-key-file is read again before every run).';
  }
  return `Write the new key into ${keyFile.path} (${keyFile.source}): the daemon reads it again before every run, no restart needed.`;
}

/** A run not started: the service refused the key, and the file holds no other one that can be used. */
export class KeyNotRenewedError extends Error {
  /** The key had been accepted before (rotated or revoked), or was refused at once. */
  readonly revoked: boolean;

  constructor(message: string, revoked: boolean) {
    super(message);
    this.name = 'KeyNotRenewedError';
    this.revoked = revoked;
  }
}

/** The client runs use: the first one, then one per new key read from the file. */
export class ServiceInUse {
  #connection: ServiceConnection;
  readonly #keyFile: KeyFileOptions | undefined;
  readonly #logger: Logger;
  #digest: string;
  /** The file's stat when it was last read (or looked at): undefined until then. */
  #seen: string | undefined;
  #lastProblem: string | undefined;
  /** The secrets of the keys replaced (newest first), and of the key given as the previous one. */
  #previous: readonly string[];

  constructor(first: ServiceConnection, keyFile: KeyFileOptions | undefined, logger: Logger) {
    this.#connection = first;
    this.#previous = first.previousSecrets ?? [];
    this.#keyFile = keyFile;
    this.#logger = logger.child({ stage: 'daemon' });
    this.#digest = keyFile ? digestOf(keyFile.apiKey) : '';
  }

  get service(): WebsiteService {
    return this.#connection.service;
  }

  get secret(): string {
    return this.#connection.secret;
  }

  /** What runs recognise fingerprints with besides `secret`: the keys this one replaced. */
  get previousSecrets(): readonly string[] {
    return this.#previous;
  }

  /**
   * Before a run: true when a new key was taken from the file (the run uses a new client). Throws
   * KeyNotRenewedError, having sent nothing, when the service refused the key and the file holds no
   * other usable one.
   */
  async beforeRun(): Promise<boolean> {
    const keyFile = this.#keyFile;
    if (!keyFile) return false;
    const refusal = this.#connection.service.keyRefusal;
    const now = await statOf(keyFile.path);
    if (refusal === undefined && now === this.#seen) return false;
    this.#seen = now;
    const read = readApiKeyFile(keyFile.path, keyFile.source);
    if ('problem' in read) return this.#unusable(read.problem, refusal);
    this.#lastProblem = undefined;
    const digest = digestOf(read.key);
    if (digest === this.#digest) {
      if (refusal === undefined) return false;
      throw new KeyNotRenewedError(unchanged(keyFile, refusal === 'revoked'), refusal === 'revoked');
    }
    const replaced = this.#connection.secret;
    this.#connection = keyFile.reconnect(read.key);
    const secret = this.#connection.secret;
    this.#previous = [replaced, ...this.#previous].filter(
      (s, i, all) => s !== secret && all.indexOf(s) === i,
    );
    this.#digest = digest;
    this.#logger.info(
      { file: keyFile.path },
      `the API key in ${keyFile.path} changed: the next requests use the new key (fingerprints of write-only fields recorded with the key before are still recognised, and recorded again with the new one: nothing is resent for them)`,
    );
    return true;
  }

  /** A file that holds no usable key: the run fails if the key in use was refused, else it goes on. */
  #unusable(problem: string, refusal: KeyRefusal | undefined): false {
    if (refusal !== undefined) {
      const revoked = refusal === 'revoked';
      const refused = revoked
        ? 'the service refused the API key after accepting it (rotated or revoked)'
        : 'the service refused the API key';
      throw new KeyNotRenewedError(
        `${refused}, and the new key cannot be taken: ${problem}. Nothing was sent; the file is read again before the next run.`,
        revoked,
      );
    }
    // The key in use still works: it stays, and the problem is told once while it stands.
    if (problem !== this.#lastProblem) {
      this.#logger.warn({ file: this.#keyFile?.path }, `${problem}; the key read before stays in use`);
    }
    this.#lastProblem = problem;
    return false;
  }
}

function unchanged(keyFile: KeyFileOptions, revoked: boolean): string {
  const refused = revoked
    ? 'the service refused the API key after accepting it: it was rotated or revoked'
    : 'the service refused the API key';
  return `${refused}, and ${keyFile.path} (${keyFile.source}) still holds that key: nothing was sent with it again. Write the new key into the file: the daemon reads it again before every run, no restart needed.`;
}

/** Compared, never kept or shown: the key itself stays with the client. */
function digestOf(key: string): string {
  return createHash('sha256').update(key).digest('base64url');
}

/** What changes when the file is rewritten in place or its symlink swapped; the error when it is gone. */
async function statOf(path: string): Promise<string> {
  try {
    const s = await stat(path, { bigint: true });
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch (error) {
    return `error:${(error as NodeJS.ErrnoException).code ?? String(error)}`;
  }
}
