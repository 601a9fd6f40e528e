import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStateStore, recordApplied } from '../../src/state/index.js';
import { skipWithoutDatabase, startTestDatabase, type TestDatabase } from '../helpers/postgres.js';

// The PostgreSQL backend in-process: ids are opaque strings, saves write what changed and nothing else.

let db: TestDatabase;
const baseUrl = 'https://stats.example.com';
const read = { baseUrl, secret: 'test-secret', dryRun: false, logger: pino({ level: 'silent' }) };

describe.skipIf(skipWithoutDatabase)('the PostgreSQL rows of a state', () => {
  beforeAll(async () => {
    db = await startTestDatabase();
  });
  afterAll(async () => {
    await db?.stop();
  });

  it('keeps ids spelled __proto__ or constructor, and a website forgotten is deleted, not left behind', async () => {
    const store = await openStateStore({ location: db.stateUrl(db.schema()), baseUrl });
    const session = await store.lock();
    const { state } = await session.read(read);
    for (const id of ['__proto__', 'constructor', '7'])
      recordApplied(state, { id, domain: `${id}.example.com` }, 'exclude_params', ['a']);
    await session.save(state);
    delete state.websites['7'];
    await session.save(state);
    await session.release();
    const again = await store.read(read);
    expect(Object.keys(again.state.websites).sort()).toEqual(['__proto__', 'constructor']);
    expect(again.state.websites.__proto__?.domain).toBe('__proto__.example.com');
    // The same key: what was recorded is known again (the salt travelled with the state).
    const id: string = 'constructor';
    expect(again.state.websites[id]?.fingerprints).toEqual(state.websites[id]?.fingerprints);
  });

  it('the trailing slash or the host case of a base URL is the same account', async () => {
    const location = db.stateUrl(db.schema());
    const first = await openStateStore({ location, baseUrl: 'https://Stats.Example.com/' });
    const session = await first.lock();
    const { state } = await session.read({ ...read, baseUrl: 'https://Stats.Example.com/' });
    recordApplied(state, { id: 1, domain: 'a.example.com' }, 'exclude_params', []);
    await session.save(state);
    await session.release();
    const second = await openStateStore({ location, baseUrl });
    expect(Object.keys((await second.read(read)).state.websites)).toEqual(['1']);
  });
});
