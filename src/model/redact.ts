// Secrets must never reach an output, whatever the service echoes back: a 422 quoting the password,
// an HTML error page repeating the Authorization header. Every text the tool writes (stdout, stderr,
// log lines, saved plans, exported manifests) passes through one Redactor that knows the API key and
// every password of the manifest, in every spelling they can take on the way (JSON-escaped,
// URL-encoded, form-encoded).

/**
 * Shorter secrets are masked only where they stand as a word of their own (not inside a longer run of
 * letters and digits): masking every "abc" in the output would make it unreadable, yet a 422 quoting a
 * 3-character password must not print it.
 */
export const MIN_SECRET_LENGTH = 4;
export const REDACTED = '[redacted]';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** One alternation, longest first, so a secret that contains another is removed whole. */
function alternation(secrets: ReadonlySet<string>): string {
  return [...secrets]
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join('|');
}

export class Redactor {
  readonly #secrets = new Set<string>();
  readonly #short = new Set<string>();
  #patterns: RegExp[] | undefined;

  /** Remembers a secret (and its encoded spellings) from now on; empty values are skipped. */
  add(secret: string | undefined): void {
    if (secret === undefined || secret === '') return;
    const into = secret.length < MIN_SECRET_LENGTH ? this.#short : this.#secrets;
    const spellings = [
      secret,
      JSON.stringify(secret).slice(1, -1),
      encodeURIComponent(secret),
      new URLSearchParams({ s: secret }).toString().slice(2),
    ];
    for (const spelling of spellings) {
      if (into.has(spelling)) continue;
      into.add(spelling);
      this.#patterns = undefined;
    }
  }

  redact(text: string): string {
    if (this.#secrets.size === 0 && this.#short.size === 0) return text;
    this.#patterns ??= [
      ...(this.#secrets.size > 0 ? [new RegExp(alternation(this.#secrets), 'g')] : []),
      ...(this.#short.size > 0
        ? [new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternation(this.#short)})(?![\\p{L}\\p{N}])`, 'gu')]
        : []),
    ];
    return this.#patterns.reduce((result, pattern) => result.replace(pattern, REDACTED), text);
  }
}
