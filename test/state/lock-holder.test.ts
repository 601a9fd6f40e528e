import { describe, expect, it } from 'vitest';
import { describeHolder } from '../../src/state/index.js';

// The holder is usually another machine (a CI runner, a replica) in another time zone than the reader:
// its time is shown in UTC and says so, whatever the reader's TZ (the tests run under any).
const holder = {
  host: 'ci-runner-7',
  pid: 4242,
  command: 'websites-sync --once',
  since: '2026-11-26T10:30:00.000Z',
};

describe('describeHolder', () => {
  it('shows since when in UTC, saying so', () => {
    expect(describeHolder(holder, Date.parse('2026-11-26T10:31:00Z'))).toBe(
      'websites-sync --once on host ci-runner-7 (pid 4242) since 10:30:00 UTC',
    );
  });

  it('adds the date when it is not the same UTC day', () => {
    expect(describeHolder(holder, Date.parse('2026-11-27T00:05:00Z'))).toBe(
      'websites-sync --once on host ci-runner-7 (pid 4242) since 2026-11-26 10:30:00 UTC',
    );
  });
});
