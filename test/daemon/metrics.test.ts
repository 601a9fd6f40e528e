import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { type Fixture, manifestText, metricValue, saveByRename, startFixture } from './fixture.js';

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const NOW = 1_700_000_000_000;

describe('daemon: /metrics', () => {
  it('counts runs, operations and API requests, with the last success time and websites managed', async () => {
    const f = await startFixture({
      manifest: manifestText([{ domain: 'a.example.com' }, { domain: 'b.example.com' }]),
      daemon: { now: () => NOW },
    });
    fixture = f;
    await f.runAfter(0); // 1 list + 1 account + 2 creates
    f.signals.emit('SIGHUP', 'SIGHUP');
    await f.runAfter(1); // 1 list + 1 account, converged
    await saveByRename(f.file, 'version: 1\nwebsites: [\n');
    await f.runAfter(2); // invalid: no request

    const response = await fetch(f.url('/metrics'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    const value = (sample: string) => metricValue(text, sample);
    expect(value('websites_sync_runs_total{result="success"}')).toBe(2);
    expect(value('websites_sync_runs_total{result="invalid_manifest"}')).toBe(1);
    expect(value('websites_sync_runs_total{result="failure"}')).toBe(0);
    expect(value('websites_sync_operations_total{action="create",result="created"}')).toBe(2);
    expect(value('websites_sync_api_requests_total{status="200"}')).toBe(4);
    expect(value('websites_sync_api_requests_total{status="201"}')).toBe(2);
    expect(f.sim.requests.map((r) => `${r.method} ${r.status}`).sort()).toEqual([
      'GET 200',
      'GET 200',
      'GET 200',
      'GET 200',
      'POST 201',
      'POST 201',
    ]);
    expect(value('websites_sync_last_success_timestamp_seconds')).toBe(NOW / 1000);
    expect(value('websites_sync_run_duration_seconds_count')).toBe(3);
    expect(value('websites_sync_websites_managed')).toBe(2);
    expect(value('websites_sync_manifest_valid')).toBe(0);
    // Default process metrics, on the same private registry.
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^nodejs_heap_size_total_bytes /m);
  });

  it('answers 404 elsewhere and 405 to anything but GET and HEAD', async () => {
    const f = await startFixture({ manifest: manifestText([]) });
    fixture = f;
    expect((await fetch(f.url('/nope'))).status).toBe(404);
    expect((await fetch(f.url('/healthz'), { method: 'POST' })).status).toBe(405);
    expect((await fetch(f.url('/healthz'), { method: 'HEAD' })).status).toBe(200);
  });
});

/** The docs' metrics table: each metric's name and the backticked words of its labels cell (names and values). */
function documentedLabels(): Array<[string, string[]]> {
  const readme = readFileSync(new URL('../../docs/reference/metrics.md', import.meta.url), 'utf8');
  return readme
    .split('\n')
    .filter((line) => line.startsWith('| `websites_sync_'))
    .map((line) => {
      const [, name = '', , labels = ''] = line.split('|').map((cell) => cell.trim());
      // Remarks in parentheses (`(waiting for \`delete_delay\`)`) are not values; value lists are.
      const values = labels.replace(/\((?!`)[^()]*\)/g, '');
      return [name.replaceAll('`', ''), [...values.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '')];
    });
}

/** Label name → values of one metric's samples in an exposition. */
function labelValues(text: string, metric: string): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  for (const line of text.split('\n').filter((l) => l.startsWith(`${metric}{`))) {
    for (const [, label = '', value = ''] of line.matchAll(/(\w+)="([^"]*)"/g)) {
      found.set(label, (found.get(label) ?? new Set()).add(value));
    }
  }
  return found;
}

describe('daemon: /metrics of a freshly started daemon', () => {
  it('has every label value the docs list, API statuses included, at 0 before any request', async () => {
    // An invalid manifest: the daemon starts and sends no request at all.
    const f = await startFixture({ manifest: 'version: 1\nwebsites: [\n' });
    fixture = f;
    const text = await (await fetch(f.url('/metrics'))).text();
    const documented = documentedLabels();
    expect(documented.length).toBeGreaterThanOrEqual(10);
    for (const [metric, words] of documented) {
      const present = labelValues(text, metric);
      const values = words.filter((word) => !present.has(word));
      const missing = values.filter((value) => ![...present.values()].some((set) => set.has(value)));
      expect([metric, missing]).toEqual([metric, []]);
    }
    const statuses = documented.find(([metric]) => metric === 'websites_sync_api_requests_total')?.[1] ?? [];
    expect(statuses).toEqual(expect.arrayContaining(['422', '429', '503', 'error']));
    // The docs say exactly which statuses appear at start: no more, no fewer.
    const scraped = labelValues(text, 'websites_sync_api_requests_total').get('status') ?? new Set();
    expect([...scraped].sort()).toEqual(statuses.filter((s) => s !== 'status').sort());
    for (const status of scraped)
      expect(metricValue(text, `websites_sync_api_requests_total{status="${status}"}`)).toBe(0);
  });
});
