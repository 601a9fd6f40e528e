import { describe, expect, it } from 'vitest';
import { editDistance, suggest } from '../../src/model/index.js';

const KEYS = ['domain', 'privacy', 'password', 'email', 'exclude_bots', 'exclude_params', 'exclude_ips'];

describe('suggest', () => {
  it.each([
    ['exlude_ips', 'exclude_ips'],
    ['exclude-ips', 'exclude_ips'],
    ['exclude_ip', 'exclude_ips'],
    ['exclude_param', 'exclude_params'],
    ['Domain', 'domain'],
    ['privcay', 'privacy'],
    ['pasword', 'password'],
    ['emails', 'email'],
  ])('%s → %s', (input, expected) => {
    expect(suggest(input, KEYS)).toBe(expected);
  });

  it.each(['colour', 'ip', 'tags', 'exclude'])('%s has no suggestion', (input) => {
    expect(suggest(input, KEYS)).toBeUndefined();
  });

  it.each([
    ['', 'abc', 3],
    ['kitten', 'sitting', 3],
    ['versoin', 'version', 1],
    ['same', 'same', 0],
  ])('editDistance(%j, %j) = %i', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
  });
});
