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
    await f.runAfter(0); // 1 list + 2 creates
    f.signals.emit('SIGHUP', 'SIGHUP');
    await f.runAfter(1); // 1 list, converged
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
    expect(value('websites_sync_api_requests_total{status="200"}')).toBe(2);
    expect(value('websites_sync_api_requests_total{status="201"}')).toBe(2);
    expect(f.sim.requests.map((r) => `${r.method} ${r.status}`).sort()).toEqual([
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
