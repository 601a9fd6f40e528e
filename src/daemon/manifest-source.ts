import type { Logger } from 'pino';
import { loadManifest, MANIFEST_FILE, parseManifestBytes, tooLargeProblem } from '../manifest/index.js';
import {
  type DesiredState,
  formatProblem,
  notRegularRefusal,
  type Problem,
  type Redactor,
  type Unlisted,
  unlistedLine,
} from '../model/index.js';
import { readContent } from './content.js';
import type { WarningLog } from './warning-log.js';

// The manifest as the daemon holds it: the last good one stays in force while the file is invalid,
// truncated, missing or unreadable, and nothing from a bad file is ever used.

export interface GoodManifest {
  desired: DesiredState;
  /** Formatted with their location. */
  warnings: string[];
  /** sha256 of the content it was parsed from. */
  hash: string;
  loadedAt: Date;
}

export interface Refresh {
  /** The content differs from the one looked at last time (the first look counts as a change). */
  changed: boolean;
}

export class ManifestSource {
  readonly #file: string;
  readonly #env: NodeJS.ProcessEnv;
  readonly #logger: Logger;
  #hash: string | undefined;
  #good: GoodManifest | undefined;
  #errors: Problem[] = [];
  /** Problems of the file as last looked at beyond the listed ones (the manifest stage lists the first). */
  #unlisted: Unlisted | undefined;

  readonly #redactor: Redactor | undefined;
  readonly #warnings: WarningLog;

  constructor(options: {
    file: string;
    env: NodeJS.ProcessEnv;
    logger: Logger;
    warnings: WarningLog;
    redactor?: Redactor;
  }) {
    this.#redactor = options.redactor;
    this.#warnings = options.warnings;
    this.#file = options.file;
    this.#env = options.env;
    this.#logger = options.logger;
  }

  /** The manifest in force: the last good one, whatever the file holds now. */
  get inForce(): GoodManifest | undefined {
    return this.#good;
  }

  /** Whether the file, as last looked at, is valid. */
  get valid(): boolean {
    return this.#errors.length === 0 && this.#good !== undefined;
  }

  /** The first error of the file as last looked at, formatted with its location. */
  get firstError(): string | undefined {
    const [first] = this.#errors;
    return first && formatProblem(first);
  }

  /** Reads the file; parses it only when its content changed. */
  async refresh(): Promise<Refresh> {
    const read = await readContent(this.#file);
    if (read.hash === this.#hash) return { changed: false };
    this.#hash = read.hash;
    // The bytes that were hashed are the bytes parsed, so the hash always names what is in force.
    const refused =
      read.notAFile !== undefined
        ? notAFile(this.#file, read.notAFile)
        : read.tooLarge
          ? tooLargeProblem(this.#file, read.tooLarge.size)
          : undefined;
    const cut = refused ?? (read.bytes && !read.whole ? midLine(this.#file, read.bytes) : undefined);
    const result = cut
      ? { desired: undefined, problems: [cut] }
      : read.bytes === undefined
        ? await loadManifest(this.#file, this.#env)
        : parseManifestBytes(read.bytes, { file: this.#file, env: this.#env });
    const errors = result.problems.filter((p) => p.severity === 'error');
    const warnings = result.problems.filter((p) => p.severity === 'warning');
    this.#unlisted = 'unlisted' in result ? result.unlisted : undefined;
    if (result.desired && errors.length === 0) {
      for (const website of result.desired.websites) this.#redactor?.add(website.password);
      this.#good = {
        desired: result.desired,
        warnings: [
          ...warnings.map(formatProblem),
          ...[unlistedLine(this.#file, this.#unlisted) ?? []].flat(),
        ],
        hash: read.hash,
        loadedAt: new Date(),
      };
      this.#errors = [];
      this.#logLoaded(warnings);
    } else {
      this.#errors = errors.length > 0 ? errors : [unreadable(this.#file)];
      this.#logInvalid();
    }
    return { changed: true };
  }

  #logLoaded(warnings: Problem[]): void {
    // Through the daemon's one log of warnings: the plans carry the same ones, told once.
    const told = warnings.map((warning) => ({
      text: formatProblem(warning),
      fields: locationOf(warning),
      message: warning.message,
    }));
    this.#warnings.tell(told, false);
    this.#logger.info(
      { stage: 'manifest', file: this.#file, websites: this.#good?.desired.websites.length },
      'manifest loaded',
    );
  }

  #logInvalid(): void {
    for (const error of this.#errors) this.#logger.error(locationOf(error), error.message);
    const more = unlistedLine(this.#file, this.#unlisted);
    if (more) this.#logger.error({ stage: 'manifest', file: this.#file, unlisted: this.#unlisted }, more);
    const errors = this.#errors.length + (this.#unlisted?.errors ?? 0);
    const fields = { stage: 'manifest', file: this.#file, errors };
    if (this.#good) {
      this.#logger.error(
        { ...fields, inForceSince: this.#good.loadedAt.toISOString() },
        'manifest invalid; nothing from it is applied, the last good manifest stays in force',
      );
    } else {
      this.#logger.error(fields, 'manifest invalid and no good one was ever loaded; not ready until fixed');
    }
  }
}

function locationOf(problem: Problem) {
  return {
    stage: 'manifest',
    file: problem.file,
    line: problem.line,
    column: problem.column,
    field: problem.field,
  };
}

/**
 * A file that does not end with a line break was most likely caught while being written (an editor or
 * a copy writing in place): applied as it is, a domain cut short (`s12.example.c`) would be created and
 * its website, with prune, deleted. Such a file waits until it ends with one, unless it was written
 * whole before it could be read (a ConfigMap's, which Helm's `|-` leaves without one).
 */
function midLine(file: string, bytes: Uint8Array): Problem | undefined {
  if (bytes.length === 0 || bytes[bytes.length - 1] === 0x0a) return undefined;
  const text = new TextDecoder().decode(bytes);
  const lines = text.split('\n');
  return {
    severity: 'error',
    file,
    line: lines.length,
    column: (lines.at(-1)?.length ?? 0) + 1,
    field: '',
    message:
      'the file does not end with a line break: it may be being written, so nothing from it is applied until it does (write the manifest in one step, e.g. by a rename, and end it with a line break)',
  };
}

function notAFile(file: string, what: string): Problem {
  const refused = notRegularRefusal('the file', what, MANIFEST_FILE);
  if (what !== 'a FIFO') return wholeFile(file, refused);
  return wholeFile(
    file,
    `${refused}: the daemon reads it again on every change and every resync, which a pipe (such as \`-f <(…)\`) cannot give; write it to a file and name that (a pipe works with --once)`,
  );
}

function unreadable(file: string): Problem {
  return wholeFile(file, 'the manifest could not be loaded');
}

/** A problem of the file as a whole, not of a place in it. */
function wholeFile(file: string, message: string): Problem {
  return { severity: 'error', file, line: 1, column: 1, field: '', message };
}
