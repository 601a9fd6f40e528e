import type { Logger } from 'pino';

// A warning (a manifest's, or a plan's: an ignore pattern that matches nothing, "check it for a typo")
// is what `--once --dry-run` prints; an unattended daemon must say it too, in its log. Each distinct
// warning is logged once while it stands, not on every pass, and again if it goes away and comes back.
// The manifest's warnings are told as soon as it loads (a run may fail before it plans); every plan
// carries them too, with its own, and is the whole of what stands now.

export interface Warning {
  /** The warning as plans show it (`file:line:column: warning: …` for the manifest's): its identity. */
  text: string;
  /** Fields of its log line (the manifest's location). */
  fields: Record<string, unknown>;
  /** Its log line's message. */
  message: string;
}

export class WarningLog {
  readonly #logger: Logger;
  readonly #told = new Set<string>();

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /**
   * Logs the warnings not told yet. With `standing` (a plan's warnings: all that stand now), one told
   * before and missing now is forgotten, so that it is told again if it comes back.
   */
  tell(warnings: readonly Warning[], standing: boolean): void {
    if (standing) {
      const now = new Set(warnings.map((warning) => warning.text));
      for (const text of this.#told) if (!now.has(text)) this.#told.delete(text);
    }
    for (const warning of warnings) {
      if (this.#told.has(warning.text)) continue;
      this.#told.add(warning.text);
      this.#logger.warn(warning.fields, warning.message);
    }
  }
}

/** A plan's warning (formatted already: a manifest's one carries its location in its text). */
export function planWarning(text: string): Warning {
  return { text, fields: { stage: 'plan' }, message: text };
}
