import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commitToBranch, putFile, readBranchInto, replaceWithDirectory } from '../../src/action/branch.js';
import { git, repositoryWith } from '../helpers/action.js';

// The state and the signed plans kept on branches of the repository: a push refused because another
// job moved the branch meanwhile is made again on the new tip, and nothing either job wrote is lost.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function twoCheckouts() {
  const dir = mkdtempSync(join(tmpdir(), 'websites-sync-branch-'));
  dirs.push(dir);
  const { workspace, origin } = repositoryWith(dir, 'version: 1\n');
  git(dir, 'clone', '-q', origin, 'other');
  return { dir, a: workspace, b: join(dir, 'other'), origin };
}

describe('commitToBranch', () => {
  it('a plan pushed by another job meanwhile is kept beside this one (retried on the new tip)', async () => {
    const { a, b, origin } = twoCheckouts();
    await commitToBranch({ cwd: b, branch: 'plans' }, 'first', putFile(b, 'aaa.json', '{"a":1}'));
    let raced = false;
    await commitToBranch({ cwd: a, branch: 'plans' }, 'mine', async (env, tip) => {
      await putFile(a, 'ccc.json', '{"c":3}')(env);
      // Another job pushes after this one read the tip, before it pushes: its push is refused once.
      if (!raced) {
        raced = true;
        expect(tip).toBeDefined();
        await commitToBranch({ cwd: b, branch: 'plans' }, 'theirs', putFile(b, 'bbb.json', '{"b":2}'));
      }
    });
    expect(git(origin, 'ls-tree', '--name-only', 'plans').split('\n')).toEqual([
      'aaa.json',
      'bbb.json',
      'ccc.json',
    ]);
    expect(git(origin, 'log', '--format=%s', 'plans').split('\n')).toEqual(['mine', 'theirs', 'first']);
  });

  it('keeps a state directory (not its lock), reads it back, and commits nothing when it did not change', async () => {
    const { dir, a, origin } = twoCheckouts();
    const state = join(dir, 'state');
    mkdirSync(state);
    writeFileSync(join(state, 'state.json'), '{"protected":{"7":{}}}\n');
    writeFileSync(join(state, 'state.json.lock'), '123\n');
    const store = { cwd: a, branch: 'websites-sync-state' };
    const first = await commitToBranch(store, 'state 1', replaceWithDirectory(a, state));
    expect(git(origin, 'ls-tree', '--name-only', 'websites-sync-state')).toBe('state.json');
    expect(await commitToBranch(store, 'state 2', replaceWithDirectory(a, state))).toBe(first);
    const back = join(dir, 'back');
    expect(await readBranchInto(store, back)).toBe(true);
    expect(readFileSync(join(back, 'state.json'), 'utf8')).toContain('"7"');
    expect(await readBranchInto({ cwd: a, branch: 'none-yet' }, join(dir, 'empty'))).toBe(false);
  });
});
