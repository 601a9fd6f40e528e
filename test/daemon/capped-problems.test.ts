import { afterEach, describe, expect, it } from 'vitest';
import { type Fixture, manifestText, saveByRename, startFixture } from './fixture.js';

// A typo repeated on every line logged one line per problem: 100,000 log lines for one bad save.

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe('daemon: a manifest with a typo repeated many times', () => {
  it('logs the first 100 errors, one line counting the rest, and the total', async () => {
    const good = manifestText([{ domain: 'a.example.com' }]);
    const f = await startFixture({ manifest: good });
    fixture = f;
    await f.runAfter(0);
    const from = f.logs.length;
    f.sim.clearRequests();

    await saveByRename(f.file, `${good}${']\n'.repeat(5000)}`);
    const invalid = await f.runAfter(1);
    expect(invalid).toMatchObject({ result: 'invalid_manifest' });
    const logged = f.logs.slice(from).filter((l) => l.level === 50 && l.stage === 'manifest');
    expect(logged.filter((l) => typeof l.line === 'number')).toHaveLength(100);
    expect(logged.find((l) => l.unlisted !== undefined)).toMatchObject({
      unlisted: { errors: 4900, warnings: 0 },
      msg: `${f.file}: 4,900 more error(s) not listed (only the first 100 errors and the first 100 warnings are)`,
    });
    expect(logged.find((l) => typeof l.errors === 'number')).toMatchObject({ errors: 5000 });
    expect(f.sim.requests).toEqual([]);
  });
});
