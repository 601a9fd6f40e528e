import { UsageError } from './errors.js';

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** "500ms", "30s", "5m", "1h30m" → milliseconds. */
export function parseDuration(text: string, option: string): number {
  const trimmed = text.trim();
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  const consumed = parts.map((p) => p[0]).join('');
  if (parts.length === 0 || consumed !== trimmed) {
    throw new UsageError(`${option}: "${text}" is not a duration; use e.g. 30s, 5m, 1h30m or 500ms`);
  }
  const ms = parts.reduce((sum, [, n, unit]) => sum + Number(n) * (UNITS[unit ?? 's'] ?? 0), 0);
  if (ms <= 0) throw new UsageError(`${option}: the duration must be greater than zero`);
  return ms;
}
