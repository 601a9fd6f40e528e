// Secrets must never reach an output, whatever the service echoes back: a 422 quoting the password,
// an HTML error page repeating the Authorization header. Every text the tool writes (stdout, stderr,
// log lines, saved plans, exported manifests) passes through one Redactor that knows the API key and
// every password of the manifest, in every spelling they can take on the way (JSON-escaped,
// URL-encoded, form-encoded).

/** Shorter secrets are not redacted: masking every "abc" in the output would make it unreadable. */
export const MIN_SECRET_LENGTH = 4;
export const REDACTED = '[redacted]';

export class Redactor {
  readonly #secrets = new Set<string>();
  #pattern: RegExp | undefined;

  /** Remembers a secret (and its encoded spellings) from now on; short or empty values are skipped. */
  add(secret: string | undefined): void {
    if (secret === undefined || secret.length < MIN_SECRET_LENGTH) return;
    const spellings = [
      secret,
      JSON.stringify(secret).slice(1, -1),
      encodeURIComponent(secret),
      new URLSearchParams({ s: secret }).toString().slice(2),
    ];
    let added = false;
    for (const spelling of spellings) {
      if (this.#secrets.has(spelling)) continue;
      this.#secrets.add(spelling);
      added = true;
    }
    if (added) this.#pattern = undefined;
  }

  redact(text: string): string {
    if (this.#secrets.size === 0) return text;
    this.#pattern ??= new RegExp(
      // Longest first, so a secret that contains another is removed whole.
      [...this.#secrets]
        .sort((a, b) => b.length - a.length)
        .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('|'),
      'g',
    );
    return text.replace(this.#pattern, REDACTED);
  }
}
