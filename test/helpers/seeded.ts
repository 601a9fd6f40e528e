/** A seeded generator: the same inputs on every run, so a failure of a differential test is reproducible. */
export function generator(seed: number) {
  let state = seed;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  /** `count` picks from `pieces`, joined: strings built from the tokens a rule cares about. */
  const join = (pieces: readonly string[], max: number): string =>
    Array.from({ length: Math.floor(random() * (max + 1)) }, () => pick(pieces)).join('');
  return { random, pick, join };
}
