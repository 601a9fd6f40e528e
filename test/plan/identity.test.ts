import { describe, expect, it } from 'vitest';
import {
  canonicalDomain,
  canonicalPattern,
  compileIgnore,
  storedKey,
  websiteKey,
} from '../../src/model/index.js';
import { checkDeleteGuard, computePlan } from '../../src/plan/index.js';
import { emptyState } from '../../src/state/index.js';
import { desiredSite, desiredState, remoteSite } from '../helpers/builders.js';
import { prng } from '../helpers/www-names.js';

// One identity for every domain comparison (issue 10 §1): ignore patterns, listed domains and records
// all go through the kernel, so a protection written in any spelling protects.
const state = () => emptyState('https://stats.example.com');

describe('canonicalPattern', () => {
  it.each([
    ['bücher.example', 'xn--bcher-kva.example'],
    ['www.legacy.example.com', 'legacy.example.com'],
    ['dot.example.com.', 'dot.example.com'],
    ['https://scheme.example.com', 'scheme.example.com'],
    ['HTTPS://Scheme.Example.com/path', 'scheme.example.com'],
    ['*.Staging.example.com', '*.staging.example.com'],
    ['shop?.example.com', 'shop?.example.com'],
    ['www.*.example.com', '*.example.com'],
    ['*.bücher.example', '*.xn--bcher-kva.example'],
  ])('%s → %s', (pattern, canonical) => {
    expect(canonicalPattern(pattern)).toBe(canonical);
  });
});

// A name the service stores as written (a path, another scheme, a needed trailing dot, a `?`) is a
// listed domain that means that record; a pattern of the same text must protect it (audit 2, D1).
describe('a pattern is read exactly as a listed domain', () => {
  const LITERAL = ['example.com/index.html', 'ftp://files.example.com', 'x.1.', 'q?x.example.com'];

  it.each(LITERAL)('%s canonicalises as the listed domain does, and protects its record', (name) => {
    const listed = canonicalDomain(name);
    expect('domain' in listed && listed.domain).toBe(canonicalPattern(name));
    const plan = computePlan({
      desired: desiredState([desiredSite('keep.example.com')], { ignore: [name], prune: true }),
      current: [remoteSite(1, 'keep.example.com'), remoteSite(2, name)],
      state: state(),
      prune: true,
    });
    expect(plan.changes.filter((c) => c.kind === 'delete')).toEqual([]);
    expect(plan.ignored).toEqual([name]);
    expect(plan.warnings).toEqual([]);
  });

  it('a wildcard matches any character of a stored name, "/" included; * and ** mean the same', () => {
    const records = [...LITERAL, 'https://www.y.example.com', 'a.b.example.com'];
    for (const pattern of ['*', '**']) {
      const rules = compileIgnore([pattern]);
      expect(records.filter((name) => rules.match(name) === -1)).toEqual([]);
    }
    const sub = compileIgnore(['*.example.com']);
    expect(['example.com/index.html', 'ftp://files.example.com', 'a/b.example.com'].map(sub.match)).toEqual([
      -1, 0, 0,
    ]);
    expect(compileIgnore(['example.com?index.html']).match('example.com/index.html')).toBe(0);
    expect(compileIgnore(['*.1.']).match('x.1.')).toBe(0);
    expect(compileIgnore(['*.1.']).match('x.1')).toBe(-1);
  });

  it('a glob in the path part of a pattern is kept: example.com/* protects example.com/index.html', () => {
    for (const pattern of [
      'example.com/*',
      'https://Example.com/**',
      'example.com/index.*',
      'example.com/index.htm?',
    ]) {
      expect({ pattern, match: compileIgnore([pattern]).match('example.com/index.html') }).toEqual({
        pattern,
        match: 0,
      });
    }
    // As before, the host it names is protected too.
    expect(compileIgnore(['example.com/*']).match('example.com')).toBe(0);
  });

  it('every pattern without glob characters canonicalises as the same text listed', () => {
    const random = prng(11);
    const chars = ['a', 'W', 'w', '.', '.', '/', '#', ':', '_', ' ', '-', '1', 'ü', '%', 'h', 't', 'p', 's'];
    let valid = 0;
    for (let i = 0; i < 20000; i++) {
      let name = '';
      for (let c = Math.floor(random() * 16); c >= 0; c--) name += chars[Math.floor(random() * chars.length)];
      name += ['.com', '.example.org', '.1.', '.', '.com.', ''][Math.floor(random() * 6)];
      const listed = canonicalDomain(name);
      if (!('domain' in listed)) continue;
      valid++;
      expect({ name, pattern: canonicalPattern(name) }).toEqual({ name, pattern: listed.domain });
      // The name an entry is written under is a record key: a record stored under it is that entry's.
      const written = listed.written ?? listed.domain;
      expect({ name, key: websiteKey(written) }).toEqual({ name, key: written });
      expect({ name, match: compileIgnore([name]).match(listed.written ?? listed.domain) }).toEqual({
        name,
        match: 0,
      });
    }
    expect(valid).toBeGreaterThan(3000);
  });

  it('the mass-delete guard leaves ignored literal names out of the share', () => {
    const current = [
      ...Array.from({ length: 6 }, (_, i) => remoteSite(i + 1, `s${i + 1}.example.com`)),
      remoteSite(7, 'example.com/index.html'),
      remoteSite(8, 'ftp://files.example.com'),
    ];
    const kept = current.slice(0, 4).map((r) => desiredSite(r.domain));
    const desired = desiredState(kept, {
      ignore: ['example.com/index.html', 'ftp://files.example.com'],
      prune: true,
    });
    const plan = computePlan({ desired, current, state: state(), prune: true });
    expect(plan.changes.filter((c) => c.kind === 'delete').map((c) => c.domain)).toEqual([
      's5.example.com',
      's6.example.com',
    ]);
    expect(checkDeleteGuard({ plan, websitesEmpty: false })).toMatch(/2 of 6 managed websites/);
  });
});

describe('record identity', () => {
  it('keeps a leading www. of a stored record, and knows what the service would store today', () => {
    expect(websiteKey('WWW.Legacy.Example.com.')).toBe('www.legacy.example.com');
    expect(storedKey('www.legacy.example.com')).toBe('legacy.example.com');
    expect(websiteKey('Bücher.example')).toBe('xn--bcher-kva.example');
  });
});

describe('ignore patterns protect in every spelling', () => {
  it.each([
    ['bücher.example', 'xn--bcher-kva.example'],
    ['www.legacy.example.com', 'legacy.example.com'],
    ['legacy.example.com', 'www.legacy.example.com'],
    ['dot.example.com.', 'dot.example.com'],
    ['https://scheme.example.com', 'scheme.example.com'],
    ['*.EXAMPLE.org', 'a.example.org'],
  ])('pattern %j keeps %s from prune', (pattern, domain) => {
    const plan = computePlan({
      desired: desiredState([desiredSite('kept.example.com')], { ignore: [pattern], prune: true }),
      current: [remoteSite(1, 'kept.example.com'), remoteSite(2, domain)],
      state: state(),
      prune: true,
    });
    expect(plan.changes.filter((c) => c.kind === 'delete')).toEqual([]);
    expect(plan.ignored).toEqual([domain]);
  });

  // Issue 19 §3: a wildcard inside a non-ASCII label was converted to punycode with the `*` inside
  // (`xn--bcher-*-n2a.example`), which matched nothing, and prune deleted what the pattern named.
  it.each([
    ['bücher-*.example', ['bücher-shop.example', 'xn--bcher-blog-9db.example']],
    ['BÜCHER-*.example', ['bücher-shop.example', 'xn--bcher-blog-9db.example']],
    ['bücher-[a-z]*.example', ['bücher-shop.example', 'xn--bcher-blog-9db.example']],
    ['b*cher-*.example', ['bücher-shop.example', 'xn--bcher-blog-9db.example']],
    ['*.münchen.example', ['shop.münchen.example', 'blog.xn--mnchen-3ya.example']],
    ['bücher-shop.exa*', ['bücher-shop.example', 'xn--bcher-shop-9db.example-2']],
    ['xn--bcher-shop-9db.example', ['bücher-shop.example']],
    ['shop.exämple*', ['shop.xn--exmple-cua', 'shop.exämple-2']],
  ])('pattern %j protects %j in either spelling', (pattern, domains) => {
    const plan = computePlan({
      desired: desiredState([desiredSite('kept.example.com')], { ignore: [pattern], prune: true }),
      current: [remoteSite(1, 'kept.example.com'), ...domains.map((domain, i) => remoteSite(i + 2, domain))],
      state: state(),
      prune: true,
    });
    expect(plan.changes.filter((c) => c.kind === 'delete')).toEqual([]);
    expect([...plan.ignored].sort()).toEqual([...domains].sort());
    expect(plan.warnings).toEqual([]);
  });

  it('a wildcard in a non-ASCII label still tells names apart', () => {
    const rules = compileIgnore(['bücher-*.example']);
    expect(['buecher-shop.example', 'bücher.example', 'xn--bcher-kva.example'].map(rules.match)).toEqual([
      -1, -1, -1,
    ]);
  });

  it('warns about a pattern that matches no website of the account', () => {
    const plan = computePlan({
      desired: desiredState([desiredSite('a.example.com')], {
        ignore: ['legacy.exmaple.com', 'b.example.com'],
      }),
      current: [remoteSite(1, 'a.example.com'), remoteSite(2, 'b.example.com')],
      state: state(),
      prune: false,
    });
    expect(plan.warnings).toEqual([
      'ignore pattern "legacy.exmaple.com" (ignore[0]) matches no website of the account and no listed domain; check it for a typo',
    ]);
  });
});

describe('records stored before the www. rule', () => {
  it.each([
    ['as written', desiredSite('legacy.example.com', { writtenDomain: 'www.legacy.example.com' })],
    ['under the name the service would store today', desiredSite('legacy.example.com')],
  ])('are matched %s, not created again', (_, website) => {
    const plan = computePlan({
      desired: desiredState([website], { prune: true }),
      current: [remoteSite(7, 'www.legacy.example.com', { email: true })],
      state: state(),
      prune: true,
    });
    expect(plan.changes.map((c) => [c.kind, 'id' in c && c.id])).toEqual([['update', 7]]);
  });

  it('prefers the record stored exactly as written, so a www. record can be listed beside its twin', () => {
    const plan = computePlan({
      desired: desiredState([desiredSite('a.example.com', { writtenDomain: 'www.a.example.com' })]),
      current: [remoteSite(1, 'www.a.example.com'), remoteSite(2, 'a.example.com')],
      state: state(),
      prune: false,
    });
    expect(plan.unmanaged).toEqual(['a.example.com']);
  });
});

// Records the service holds separately stay distinct (audit of issues 10/11, item 6): with prune on,
// the record an entry does not take but that shares its identity is never deleted.
describe('records that share an identity', () => {
  it.each([
    [['dup.example.com.', 'DUP.example.com'], ['dup.example.com']],
    [['DUP.example.com', 'dup.example.com.'], ['dup.example.com']],
    [['xn--bcher-kva.example', 'bücher.example'], ['xn--bcher-kva.example']],
    [['www.legacy.example.com', 'legacy.example.com'], ['legacy.example.com']],
    [['legacy.example.com', 'www.legacy.example.com'], ['legacy.example.com']],
    [['www.only.example.com', 'www.www.only.example.com'], ['only.example.com']],
  ])('%j listed as %j: one is managed, none is deleted, in any listing order', (stored, listed) => {
    for (const order of [stored, [...stored].reverse()]) {
      const current = order.map((domain) => remoteSite(stored.indexOf(domain) + 1, domain));
      const desired = desiredState(
        listed.map((domain) => desiredSite(domain)),
        { prune: true },
      );
      const plan = computePlan({ desired, current, state: state(), prune: true });
      expect(plan.changes.filter((c) => c.kind === 'delete')).toEqual([]);
      expect(plan.warnings.join('\n')).toMatch(/never changes or deletes this one/);
    }
  });

  it('a www. record listed as written beside its twin: both managed, no change', () => {
    const current = [remoteSite(1, 'www.legacy.example.com'), remoteSite(2, 'legacy.example.com')];
    const desired = desiredState(
      [
        desiredSite('legacy.example.com', { writtenDomain: 'www.legacy.example.com' }),
        desiredSite('legacy.example.com'),
      ],
      { prune: true },
    );
    const plan = computePlan({ desired, current, state: state(), prune: true });
    expect(plan.changes.filter((c) => c.kind !== 'update')).toEqual([]);
    expect(plan.unchanged + plan.changes.length).toBe(2);
    expect(plan.warnings).toEqual([]);
  });
});

describe('the mass-delete guard counts the websites the tool manages', () => {
  it('8 websites, 2 ignored, 2 to delete: 2 of 6 is over 25%', () => {
    const current = Array.from({ length: 8 }, (_, i) => remoteSite(i + 1, `s${i + 1}.example.com`));
    const kept = current.slice(0, 4).map((r) => desiredSite(r.domain));
    const desired = desiredState(kept, { ignore: ['s7.example.com', 's8.example.com'], prune: true });
    const plan = computePlan({ desired, current, state: state(), prune: true });
    expect(plan.changes.filter((c) => c.kind === 'delete')).toHaveLength(2);
    expect(checkDeleteGuard({ plan, websitesEmpty: false })).toMatch(/2 of 6 managed websites \(33\.33%\)/);
  });
});
