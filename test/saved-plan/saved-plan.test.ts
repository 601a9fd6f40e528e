import { describe, expect, it } from 'vitest';
import type { DesiredState, RemoteWebsite } from '../../src/model/index.js';
import { computePlan } from '../../src/plan/index.js';
import {
  buildSavedPlan,
  parseSavedPlan,
  planFromSaved,
  type SavedPlanFile,
  type StaleContext,
  signatureMismatch,
  staleReasons,
  targetMismatch,
} from '../../src/saved-plan/index.js';
import { signedText } from '../../src/saved-plan/signature.js';
import { emptyState, recordApplied, type StateData } from '../../src/state/index.js';
import { desiredSite, desiredState, remoteSite } from '../helpers/builders.js';

const BASE = 'https://stats.example.com';
const PASSWORD = 'planned-password-5c1e';
const SECRET = 'secret-derived-from-the-api-key';
const SALT = '00112233445566778899aabbccddeeff';

function scenario(password = PASSWORD) {
  const desired = desiredState(
    [
      desiredSite('keep.example.com'),
      desiredSite('edit.example.com', { email: true }),
      desiredSite('shop.example.com', { privacy: 2, password }),
    ],
    { prune: true },
  );
  const current: RemoteWebsite[] = [
    remoteSite(1, 'keep.example.com'),
    remoteSite(2, 'edit.example.com'),
    remoteSite(3, 'old.example.com'),
  ];
  const state: StateData = emptyState(BASE);
  for (const record of current) recordApplied(state, record, 'exclude_params', []);
  return { desired, current, state };
}

function save(desired: DesiredState, current: RemoteWebsite[], state: StateData): SavedPlanFile {
  const plan = computePlan({ desired, current, state, prune: true });
  return buildSavedPlan({
    plan,
    desired,
    current,
    baseUrl: BASE,
    version: '1.2.3',
    prune: true,
    force: false,
    salt: SALT,
    secret: SECRET,
    now: new Date('2025-01-02T03:04:05Z'),
  });
}

describe('buildSavedPlan', () => {
  it('records the operations, the affected records and what must stay absent, without secrets', () => {
    const { desired, current, state } = scenario();
    const file = save(desired, current, state);
    expect(JSON.stringify(file)).not.toContain(PASSWORD);
    const meta = file.saved_plan;
    expect(meta.operations).toEqual([
      { action: 'delete', id: 3, domain: 'old.example.com', send: null },
      { action: 'update', id: 2, domain: 'edit.example.com', send: { email: true } },
      {
        action: 'create',
        id: null,
        domain: 'shop.example.com',
        send: { privacy: 2, email: false, exclude_bots: true, password: '(sensitive)' },
      },
    ]);
    expect(Object.keys(meta.remote.records)).toEqual(['2', '3']);
    expect(meta.remote.absent).toEqual(['shop.example.com']);
    expect(meta.remote.unlisted).toEqual(['old.example.com']);
    expect(Object.keys(meta.desired.passwords)).toEqual(['shop.example.com']);
    expect(meta).toMatchObject({ base_url: BASE, tool_version: '1.2.3', salt: SALT, prune: true });
    expect(file.changes.map((c) => c.domain)).toEqual(meta.operations.map((o) => o.domain));
  });

  it('survives a round trip through its own parser', () => {
    const { desired, current, state } = scenario();
    const file = save(desired, current, state);
    expect(parseSavedPlan(JSON.stringify(file))).toEqual({ file });
  });
});

/** Stale reasons, with the fresh plan computed as a run computes it (the saved plan prunes). */
function stale(
  file: SavedPlanFile,
  context: Omit<StaleContext, 'fresh' | 'secret'>,
  secret = SECRET,
): string[] {
  return staleReasons(file, { ...context, secret, fresh: computePlan({ ...context, prune: true }) });
}

describe('staleReasons', () => {
  it('finds nothing when nothing changed, and rebuilds exactly the saved operations', () => {
    const { desired, current, state } = scenario();
    const file = save(desired, current, state);
    expect(targetMismatch(file, { baseUrl: BASE, version: '1.2.3' })).toEqual([]);
    expect(stale(file, { desired, current, state })).toEqual([]);
    const plan = planFromSaved(file, desired, current.length);
    const fresh = computePlan({ desired, current, state, prune: true });
    expect(plan.changes).toEqual(fresh.changes);
  });

  it('ignores changes that do not touch the manifest content: order and file positions', () => {
    const { desired, current, state } = scenario();
    const file = save(desired, current, state);
    const moved = {
      ...desired,
      websites: [...desired.websites]
        .reverse()
        .map((w) => ({ ...w, location: { file: 'x', line: 9, column: 9 } })),
    };
    expect(stale(file, { desired: moved, current, state })).toEqual([]);
  });

  it.each<{ name: string; change: (s: ReturnType<typeof scenario>) => void; reasons: RegExp[] }>([
    {
      name: 'an affected record changed',
      change: (s) => Object.assign(s.current[1]!, { privacy: 0 }),
      reasons: [/^remote website edit\.example\.com \(id 2\) changed since the plan$/],
    },
    {
      name: 'an affected record was deleted',
      change: (s) => s.current.splice(2, 1),
      reasons: [/^remote website old\.example\.com \(id 3\) was deleted since the plan$/],
    },
    {
      name: 'a website the plan creates appeared',
      change: (s) => s.current.push(remoteSite(7, 'shop.example.com')),
      reasons: [/^remote website shop\.example\.com \(id 7\) appeared since the plan, which creates it$/],
    },
    {
      name: 'an unlisted website appeared while the plan prunes',
      change: (s) => s.current.push(remoteSite(8, 'new-stray.example.com')),
      reasons: [/^remote website new-stray\.example\.com \(id 8\) appeared .* not in the manifest/],
    },
    {
      name: 'a listed website changed in the manifest',
      change: (s) => Object.assign(s.desired.websites[0]!, { email: true }),
      reasons: [/^the manifest changed since the plan: keep\.example\.com changed$/],
    },
    {
      name: 'websites were added to and removed from the manifest',
      change: (s) => s.desired.websites.splice(0, 1, desiredSite('added.example.com')),
      reasons: [
        /^the manifest changed since the plan: added\.example\.com added, keep\.example\.com removed$/,
      ],
    },
    {
      name: 'ignore changed',
      change: (s) => s.desired.ignore.push('*.test'),
      reasons: [/^the manifest changed since the plan: prune or ignore changed$/],
    },
    {
      name: 'the password in the environment differs',
      change: (s) => Object.assign(s.desired.websites[2]!, { password: 'another' }),
      reasons: [/^the password of shop\.example\.com in the environment differs from the planned one$/],
    },
  ])('refuses when $name', ({ change, reasons }) => {
    const s = scenario();
    const file = save(s.desired, s.current, s.state);
    change(s);
    const found = stale(file, { desired: s.desired, current: s.current, state: s.state });
    expect(found).toHaveLength(reasons.length);
    reasons.forEach((reason, i) => {
      expect(found[i]).toMatch(reason);
    });
  });

  it.each<{ name: string; edit: (file: SavedPlanFile) => void; reason: RegExp }>([
    {
      name: 'a delete added by hand for a listed website',
      edit: (f) =>
        f.saved_plan.operations.push({ action: 'delete', id: 1, domain: 'keep.example.com', send: null }),
      reason: /^the saved plan would delete keep\.example\.com \(id 1\), which a fresh plan does not$/,
    },
    {
      name: 'the id of a delete edited to another website',
      edit: (f) => Object.assign(f.saved_plan.operations[0]!, { id: 1 }),
      reason: /^the saved plan would delete old\.example\.com \(id 1\), which a fresh plan does not$/,
    },
    {
      name: 'a value edited',
      edit: (f) => Object.assign(f.saved_plan.operations[1]!, { send: { email: false, privacy: 0 } }),
      reason: /^the saved plan would update edit\.example\.com \(id 2\) with other values than a fresh plan$/,
    },
  ])('refuses $name, although every input is unchanged', ({ edit, reason }) => {
    const s = scenario();
    const file = save(s.desired, s.current, s.state);
    edit(file);
    expect(stale(file, s)).toEqual(expect.arrayContaining([expect.stringMatching(reason)]));
  });

  it('refuses when a fresh plan has an operation the saved one lacks (drift on another website)', () => {
    const s = scenario();
    const file = save(s.desired, s.current, s.state);
    Object.assign(s.current[0]!, { email: true });
    expect(stale(file, s)).toEqual(['a fresh plan would also update keep.example.com (id 1)']);
  });

  it('reports everything that changed at once', () => {
    const s = scenario();
    const file = save(s.desired, s.current, s.state);
    Object.assign(s.current[1]!, { email: true });
    s.current.splice(2, 1);
    Object.assign(s.desired.websites[2]!, { password: 'another' });
    expect(stale(file, s)).toHaveLength(3);
  });

  it('refuses another base URL or tool version before any request', () => {
    const s = scenario();
    const file = save(s.desired, s.current, s.state);
    expect(targetMismatch(file, { baseUrl: 'https://other.example.com', version: '1.2.4' })).toEqual([
      'the plan was made for https://stats.example.com, not https://other.example.com (the base URL differs)',
      'the plan was made by websites-sync 1.2.3, this is 1.2.4; plan again with this version',
    ]);
  });
});

describe('planFromSaved', () => {
  it('takes the password from the environment, never from the file', () => {
    const s = scenario();
    const file = save(s.desired, s.current, s.state);
    const create = planFromSaved(file, s.desired, 3).changes.find((c) => c.kind === 'create');
    expect(create).toMatchObject({ kind: 'create', send: { privacy: 2, password: PASSWORD } });
  });

  it("keeps a create's protect and ignore_fields, which say what the apply may remember and send", () => {
    const s = scenario();
    s.desired.websites.push(desiredSite('new.example.com', { protect: true, ignoreFields: ['email'] }));
    const file = save(s.desired, s.current, s.state);
    const create = planFromSaved(file, s.desired, 3).changes.find((c) => c.domain === 'new.example.com');
    expect(create).toMatchObject({ kind: 'create', protect: true, ignoreFields: ['email'] });
  });
});

describe('parseSavedPlan', () => {
  it.each([
    ['not JSON', '{', /^not JSON/],
    ['a plain JSON plan', '{"format_version":1,"changes":[]}', /without "saved_plan"/],
    ['another shape', '{"saved_plan":{}}', /^not a saved plan of format 1/],
  ])('refuses %s', (_name, text, message) => {
    const parsed = parseSavedPlan(text);
    expect('error' in parsed && parsed.error).toMatch(message);
  });

  it('names the version that made a plan it cannot read only when that is another version', () => {
    const s = scenario();
    const file = save(s.desired, s.current, s.state) as unknown as Record<string, unknown>;
    const text = JSON.stringify({ ...file, format_version: 3 });
    const made = (file.saved_plan as { tool_version: string }).tool_version;
    expect(parseSavedPlan(text, `${made}-newer`)).toEqual({
      error: expect.stringMatching(
        new RegExp(
          `^made by websites-sync ${made.replaceAll('.', '\\.')}, in a form this version cannot read .*; plan again with this version$`,
        ),
      ),
    });
    expect(parseSavedPlan(text, made)).toEqual({
      error: expect.stringMatching(/^not a saved plan of format 1 \(format_version: /),
    });
  });

  it('refuses operations that do not match the changes', () => {
    const s = scenario();
    const file = save(s.desired, s.current, s.state);
    file.saved_plan.operations.reverse();
    expect(parseSavedPlan(JSON.stringify(file))).toEqual({
      error: 'its operations do not match its changes (edited by hand?)',
    });
  });
});

describe('signature', () => {
  it('holds for the text as signed, and for nothing else: another byte or another key', () => {
    const s = scenario();
    const text = signedText(JSON.stringify(save(s.desired, s.current, s.state)), SECRET);
    expect(signatureMismatch(text, SECRET)).toEqual([]);
    expect(signatureMismatch(text.replace('"prune": true', '"prune": false'), SECRET)).toHaveLength(1);
    expect(signatureMismatch(text, `${SECRET}x`)).toEqual([
      expect.stringContaining('saved with another API key'),
    ]);
    const { signature: _dropped, ...unsigned } = JSON.parse(text) as Record<string, unknown>;
    expect(signatureMismatch(JSON.stringify(unsigned), SECRET)).toEqual([
      expect.stringContaining('is not signed'),
    ]);
  });
});
