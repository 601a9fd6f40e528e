import { expect } from 'vitest';
import type { Outcome } from '../../src/apply/index.js';
import { compareText } from '../../src/model/index.js';
import type { Simulator, StoredWebsite } from '../../src/simulator/index.js';

// Shared by the resilience tests: a manifest of N websites with varied settings, and the one assertion
// every test ends with: the account holds exactly what the manifest declares, each domain once.

/** Small delays so that faults cost milliseconds; many retries so that 25% faults never exhaust them. */
export const FAST_RETRY = { minDelayMs: 5, maxDelayMs: 50, maxRetries: 10 };

export interface TestSite {
  domain: string;
  privacy: 0 | 1 | 2;
  email: boolean;
  exclude_bots: boolean;
  exclude_params: string[];
  exclude_ips: string[];
  password: string | undefined;
}

export function testSites(count: number, prefix = 'site'): TestSite[] {
  return Array.from({ length: count }, (_, i) => {
    const privacy = (i % 3) as 0 | 1 | 2;
    return {
      domain: `${prefix}${i}.example.com`,
      privacy,
      email: i % 2 === 0,
      exclude_bots: i % 3 !== 1,
      exclude_params: i % 4 === 0 ? ['ref', 'utm_source'] : [],
      exclude_ips: i % 5 === 0 ? [`203.0.113.${i}`] : [],
      password: privacy === 2 ? `secret-${i}` : undefined,
    };
  });
}

const PRIVACY = ['public', 'private', 'password'];

export function manifestOf(sites: TestSite[], options: { prune?: boolean } = {}): string {
  const entries = sites.map((s) =>
    [
      `  - domain: ${s.domain}`,
      `    privacy: ${PRIVACY[s.privacy]}`,
      `    email: ${s.email}`,
      `    exclude_bots: ${s.exclude_bots}`,
      `    exclude_params: [${s.exclude_params.join(', ')}]`,
      `    exclude_ips: [${s.exclude_ips.map((ip) => `"${ip}"`).join(', ')}]`,
      ...(s.password ? [`    password: ${s.password}`] : []),
    ].join('\n'),
  );
  return `version: 1\nprune: ${options.prune ?? false}\nwebsites:\n${entries.join('\n')}\n`;
}

function lines(value: string | null): string[] {
  return (value ?? '')
    .split('\n')
    .filter((v) => v !== '')
    .sort();
}

function asStored(w: StoredWebsite) {
  return {
    domain: w.domain,
    privacy: w.privacy,
    email: w.email === 1,
    exclude_bots: w.exclude_bots === 1,
    exclude_params: lines(w.exclude_params),
    exclude_ips: lines(w.exclude_ips),
    password: w.password ?? undefined,
  };
}

/** The account holds exactly `sites` (plus `others`, by domain): every setting, each domain once. */
export function expectAccount(simulator: Simulator, sites: TestSite[], others: string[] = []): void {
  const stored = simulator.listWebsites();
  const domains = stored.map((w) => w.domain);
  expect(domains.length, 'a domain is on the account twice').toBe(new Set(domains).size);
  const declared = new Set(sites.map((s) => s.domain));
  const byDomain = (a: { domain: string }, b: { domain: string }) => compareText(a.domain, b.domain);
  expect(
    stored
      .filter((w) => declared.has(w.domain))
      .map(asStored)
      .sort(byDomain),
  ).toEqual([...sites].sort(byDomain));
  expect(domains.filter((d) => !declared.has(d)).sort()).toEqual([...others].sort());
}

/** Outcomes by result, e.g. `{ created: 28, adopted: 2 }`. */
export function countResults(outcomes: Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[o.result] = (counts[o.result] ?? 0) + 1;
  return counts;
}

/** Stores sent per domain: more than one for a domain is only allowed after a lookup found nothing. */
export function storesByDomain(simulator: Simulator): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of simulator.requests) {
    if (r.method !== 'POST' || !r.body?.domain) continue;
    counts.set(r.body.domain, (counts.get(r.body.domain) ?? 0) + 1);
  }
  return counts;
}
