import { describe, expect, it } from 'vitest';
import { formatCount } from '../../src/model/index.js';

describe('formatCount: counts as people read them', () => {
  it.each([
    [0, '0'],
    [7, '7'],
    [999, '999'],
    [1_000, '1,000'],
    [1_204, '1,204'],
    [65_536, '65,536'],
    [1_234_567, '1,234,567'],
    [-1_204, '-1,204'],
  ])('%d → %s, as en-US writes it', (n, text) => {
    expect(formatCount(n)).toBe(text);
    expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
  });
});
