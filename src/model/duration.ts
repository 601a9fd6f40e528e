// Durations as people write them in a manifest, a flag or the environment: "24h", "30m", "1h30m",
// "500ms", "0". The manifest and the CLI read the same syntax, so they share this one reader.

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds, or undefined when the text is not a duration. "0" is zero (no delay). */
export function parseDurationMs(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '0') return 0;
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== trimmed) return undefined;
  return parts.reduce((sum, [, n, unit]) => sum + Number(n) * (UNITS[unit ?? 's'] ?? 0), 0);
}

/**
 * How long a delete may be held back (`delete_delay:` in the manifest, `--delete-delay`,
 * WEBSITES_SYNC_DELETE_DELAY): one range for all three. Zero deletes at once; a year is the most.
 */
export const DELETE_DELAY_RANGE = { minMs: 0, maxMs: 365 * 86_400_000 } as const;

/** A range's bound as it is written: `0`, `365d`, `7d`, `1h`, `10m`, `1s`, `100ms`. */
export function formatBound(ms: number): string {
  if (ms === 0) return '0';
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
  ] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/** Whole seconds as people read them: "45s", "2m10s", "1h30m", "2d3h" (the two largest units). */
export function formatDuration(ms: number): string {
  let rest = Math.max(0, Math.round(ms / 1_000));
  const parts: string[] = [];
  for (const [unit, seconds] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const count = Math.floor(rest / seconds);
    rest -= count * seconds;
    if (count > 0 || (unit === 's' && parts.length === 0)) parts.push(`${count}${unit}`);
  }
  return parts.slice(0, 2).join('');
}
