// Counts as people read them, with a comma between thousands (1,204 visitors). Written out rather than
// `toLocaleString('en-US')`: its first call loads ICU's number formatting, about 18 ms of CPU in a profile
// of a one-website dry run (for the one line that says what the account's plan allows).

/** `1204` → `1,204`; a count is a whole number (a fraction is cut). */
export function formatCount(n: number): string {
  const whole = String(Math.trunc(Math.abs(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return n < 0 ? `-${whole}` : whole;
}
