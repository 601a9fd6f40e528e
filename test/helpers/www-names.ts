// Generated domain names that exercise the service's store rule (issue 11, fact 1): `www.`-like pieces
// anywhere, schemes in the middle, mixed case. Deterministic (a seeded PRNG), so a failure reproduces.

import { createPrng } from '../../src/simulator/faults.js';

const PIECES = [
  'www.',
  'ww.',
  'wwww.',
  'w.',
  'www',
  'http://',
  'https://',
  'htt',
  'ps://',
  'shop.',
  'a',
  'x-',
];
const TAILS = ['example.com', 'x-example.com', 'example.org', 'www.example.net', 'wwwexample.com'];

/** The simulator's seeded PRNG (mulberry32): generated names are reproducible by seed. */
export const prng = createPrng;

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

/** `count` names: 0 to 5 pieces before a usual tail, each character upper-cased at random. */
export function wwwNames(count: number, seed: number): string[] {
  const random = prng(seed);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    let name = '';
    const pieces = Math.floor(random() * 6);
    for (let p = 0; p < pieces; p++) name += pick(random, PIECES);
    if (!name.endsWith('.') && name !== '' && !name.endsWith('//')) name += '.';
    name += pick(random, TAILS);
    names.push([...name].map((c) => (random() < 0.2 ? c.toUpperCase() : c)).join(''));
  }
  return names;
}

/**
 * The service's store rule transliterated from its PHP (prepareForValidation of the store request),
 * independently of src/: `mb_strtolower`, `str_replace(['https://', 'http://'], '', …)` (each search
 * string in turn, one left-to-right pass each), and `str_replace('www.', '', …)` when the result
 * starts with `www.`.
 */
export function phpStore(raw: string): string {
  const strReplace = (search: string, subject: string) => subject.split(search).join('');
  let domain = raw.trim().toLowerCase();
  for (const search of ['https://', 'http://']) domain = strReplace(search, domain);
  return domain.startsWith('www.') ? strReplace('www.', domain) : domain;
}
