// The guards that take the service's facts as data (issue 20): pure, so tested without a network.
import { describe, expect, it } from 'vitest';
import type { TrafficGuardMode, TrafficReading } from '../../src/model/index.js';
import { eventsOfRun } from '../../src/notify/index.js';
import {
  type Change,
  emptyPlan,
  fitCapacity,
  guardTraffic,
  type Plan,
  renderMarkdown,
  renderText,
  toJsonPlan,
} from '../../src/plan/index.js';

const del = (id: number, domain: string): Change => ({
  kind: 'delete',
  id,
  domain,
  fields: [],
  risks: ['delete'],
});
const create = (domain: string): Change => ({ kind: 'create', domain, send: {}, fields: [], risks: [] });

function plan(changes: Change[], accountSize = 10): Plan {
  return { ...emptyPlan(accountSize), changes };
}

const known = (visitors: number): TrafficReading => ({ kind: 'known', visitors });
const unknown: TrafficReading = { kind: 'unknown', reason: 'the service answered 500' };
const passing: TrafficReading = { kind: 'unknown', reason: 'the service answered 503', transient: true };

function guard(
  readings: Record<number, TrafficReading>,
  options: { mode?: TrafficGuardMode; force?: boolean; allowed?: string[]; windowDays?: number } = {},
) {
  const traffic = new Map(Object.entries(readings));
  return guardTraffic(plan([del(1, 'shop.example.com'), create('new.example.com')]), {
    settings: { windowDays: options.windowDays ?? 30, mode: options.mode ?? 'lenient' },
    traffic,
    allowed: new Set(options.allowed ?? []),
    force: options.force ?? false,
  });
}

describe('guardTraffic', () => {
  it.each([
    { reading: known(1204), mode: 'lenient', refused: true },
    { reading: known(0), mode: 'lenient', refused: false },
    { reading: known(0), mode: 'strict', refused: false },
    { reading: unknown, mode: 'lenient', refused: false },
    { reading: unknown, mode: 'strict', refused: true },
    // No usable answer now (a 503 after the retries, a timeout): held back whatever the mode.
    { reading: passing, mode: 'lenient', refused: true },
    { reading: passing, mode: 'strict', refused: true },
  ] as const)('$reading.kind $reading.visitors ($mode): refused $refused', ({ reading, mode, refused }) => {
    const guarded = guard({ 1: reading }, { mode });
    expect(guarded.trafficRefused.map((r) => r.domain)).toEqual(refused ? ['shop.example.com'] : []);
    // The rest of the plan goes ahead.
    expect(guarded.changes.map((c) => c.kind)).toEqual(refused ? ['create'] : ['delete', 'create']);
  });

  it('a delete never read counts as unknown: strict refuses it', () => {
    expect(guard({}, { mode: 'strict' }).trafficRefused).toHaveLength(1);
  });

  it.each([
    { force: true, allowed: [], by: '--force' },
    { force: false, allowed: ['shop.example.com'], by: 'allow_delete_with_traffic' },
  ])('$by lets a delete with traffic through, and says so', ({ force, allowed, by }) => {
    const guarded = guard({ 1: known(12) }, { force, allowed });
    expect(guarded.trafficRefused).toEqual([]);
    expect(guarded.changes[0]).toMatchObject({ kind: 'delete', traffic: { visitors: 12, allowedBy: by } });
  });

  it('window 0 is off: the plan is left as it was', () => {
    const guarded = guard({ 1: known(12) }, { windowDays: 0 });
    expect(guarded.trafficRefused).toEqual([]);
    expect(guarded.trafficWindowDays).toBeUndefined();
  });

  it('every format shows the refusal with its count, and unknown traffic beside its delete', () => {
    const refused = guard({ 1: known(1204) });
    const line = 'shop.example.com: refused, 1,204 visitors in the last 30 days';
    expect(renderText(refused, { color: false })).toContain(`- ${line}`);
    expect(renderMarkdown(refused)).toContain(`- ${line}`);
    expect(toJsonPlan(refused).traffic_refused).toEqual([
      { id: 1, domain: 'shop.example.com', visitors: 1204, window_days: 30 },
    ]);
    const lenient = guard({ 1: unknown });
    expect(renderText(lenient, { color: false })).toMatch(
      /- shop\.example\.com \(id 1\) {2}\(traffic unknown: the service answered 500\)/,
    );
    expect(renderMarkdown(lenient)).toContain('traffic unknown');
    expect(toJsonPlan(lenient).changes[0]?.traffic).toEqual({
      visitors: null,
      window_days: 30,
      unknown_reason: 'the service answered 500',
    });
  });

  it('the note under the plan says why a delete of unknown traffic goes ahead: lenient, or let through under strict', () => {
    const lenient = renderText(guard({ 1: unknown }), { color: false });
    expect(lenient).toContain('traffic_guard is lenient, so they go ahead');
    const allowed = renderText(guard({ 1: unknown }, { mode: 'strict', allowed: ['shop.example.com'] }), {
      color: false,
    });
    expect(allowed).toContain(
      'traffic unknown for 1 delete(s) (shop.example.com): they go ahead, let through by allow_delete_with_traffic: true or --force',
    );
    expect(allowed).not.toContain('lenient');
  });

  it('a refused delete of a name with control characters is counted in every summary (shown escaped)', () => {
    const hostile = guardTraffic(plan([del(1, 'ev\u001b[8mil.example.com')]), {
      settings: { windowDays: 30, mode: 'lenient' },
      traffic: new Map([['1', known(5)]]),
      allowed: new Set(),
      force: false,
    });
    expect(hostile.changes).toEqual([]);
    expect(renderText(hostile, { color: false })).toContain(
      '1 domain contains control characters, shown escaped',
    );
    expect(renderMarkdown(hostile)).toContain('1 domain contains control characters, shown escaped');
    expect(toJsonPlan(hostile).summary.domains_with_controls).toBe(1);
  });

  it('the notification of a refusal for unknown traffic (strict) does not claim the website has visitors', () => {
    const strict = guard({ 1: unknown }, { mode: 'strict' });
    const events = eventsOfRun({ plan: strict, failed: [], succeeded: [], resync: false, dryRun: false });
    const event = events.find((e) => e.event === 'traffic_refused');
    expect(event?.text).not.toContain('still have visitors');
    expect(event?.text).toContain('traffic unknown');
  });

  it('the notification of deletes with unknown traffic does not claim they went ahead (they may have failed)', () => {
    const forced = guard({ 1: unknown }, { mode: 'strict', force: true });
    const events = eventsOfRun({ plan: forced, failed: [], succeeded: [], resync: false, dryRun: false });
    const event = events.find((e) => e.event === 'traffic_unknown');
    expect(event?.text).toContain('traffic unknown for 1 delete(s), not blocked by the traffic guard');
    expect(event?.text).toContain('--force');
  });
});

describe('fitCapacity', () => {
  const creates = (n: number) => Array.from({ length: n }, (_, i) => create(`new${i}.example.com`));

  it.each([
    { limit: 50, now: 48, deletes: 1, creates: 0, after: 47, unfit: 0 },
    { limit: 50, now: 48, deletes: 0, creates: 2, after: 50, unfit: 0 },
    { limit: 50, now: 48, deletes: 0, creates: 4, after: 50, unfit: 2 },
    // Deletes run first: their room is the creates'.
    { limit: 50, now: 50, deletes: 2, creates: 3, after: 50, unfit: 1 },
    // An account already over its limit fits no create.
    { limit: 5, now: 7, deletes: 0, creates: 2, after: 7, unfit: 2 },
  ])('limit $limit, $now now, -$deletes +$creates: $after after, $unfit unfit', (c) => {
    const changes = [
      ...Array.from({ length: c.deletes }, (_, i) => del(i + 1, `d${i}.example`)),
      ...creates(c.creates),
    ];
    const fitted = fitCapacity(plan(changes, c.now), { kind: 'limited', websites: c.limit });
    expect(fitted.capacity).toMatchObject({ now: c.now, after: c.after, unfit: c.unfit });
    const unfit = fitted.changes.filter((ch) => ch.kind === 'create' && ch.unfit).map((ch) => ch.domain);
    // The last creates are the ones left out.
    expect(unfit).toEqual(
      creates(c.creates)
        .slice(c.creates - c.unfit)
        .map((ch) => ch.domain),
    );
  });

  it('says the limit and what the plan leaves, in every format; unknown and unlimited change nothing else', () => {
    const limited = fitCapacity(plan([del(1, 'old.example')], 48), { kind: 'limited', websites: 50 });
    const line = "the account's plan allows 50 websites; 48 now, 47 after this plan";
    expect(renderText(limited, { color: false })).toContain(line);
    expect(renderMarkdown(limited)).toContain(line.replace("'", "'"));
    expect(toJsonPlan(limited).capacity).toEqual({
      limit: 50,
      unlimited: false,
      known: true,
      now: 48,
      after: 47,
      unfit: 0,
    });
    const unknownLimit = fitCapacity(plan(creates(3), 48), {
      kind: 'unknown',
      reason: 'the service answered 404',
    });
    expect(unknownLimit.changes.some((c) => c.kind === 'create' && c.unfit)).toBe(false);
    expect(renderText(unknownLimit, { color: false })).toContain(
      "the account's plan limit is unknown (the service answered 404)",
    );
    const unlimited = fitCapacity(plan(creates(3), 48), { kind: 'unlimited' });
    expect(renderText(unlimited, { color: false })).toContain(
      "the account's plan allows any number of websites; 48 now, 51 after this plan",
    );
  });

  it('an unfit create is marked in every format', () => {
    const fitted = fitCapacity(plan(creates(2), 50), { kind: 'limited', websites: 51 });
    expect(renderText(fitted, { color: false })).toMatch(
      /\+ new1\.example\.com {2}\(not created: the account's plan limit \(51 websites\) is reached\)/,
    );
    expect(toJsonPlan(fitted).changes.map((c) => c.unfit)).toEqual([undefined, true]);
    expect(toJsonPlan(fitted).summary.unfit).toBe(1);
  });
});
