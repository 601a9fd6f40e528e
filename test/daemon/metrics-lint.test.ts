import { describe, expect, it } from 'vitest';
import { OPERATION_RESULTS } from '../../src/apply/index.js';
import { DaemonMetrics, RUN_RESULTS } from '../../src/daemon/metrics.js';
import { RateBudget } from '../../src/service/index.js';
import { metricValue } from './fixture.js';
import { promlint } from './promlint.js';

// Issue 12 §7: alerting rules work from the first scrape, and the exposition passes promtool's lint.
describe('/metrics before the first run', () => {
  it('has every result of every counter at 0, so the first failure is an increase', async () => {
    const text = await new DaemonMetrics({ defaultMetrics: false }).registry.metrics();
    for (const result of RUN_RESULTS)
      expect(metricValue(text, `websites_sync_runs_total{result="${result}"}`)).toBe(0);
    for (const [action, results] of Object.entries(OPERATION_RESULTS)) {
      for (const result of results) {
        expect(
          metricValue(text, `websites_sync_operations_total{action="${action}",result="${result}"}`),
        ).toBe(0);
      }
    }
    expect(metricValue(text, 'websites_sync_operations_total{action="create",result="failed"}')).toBe(0);
    expect(metricValue(text, 'websites_sync_api_requests_total{status="error"}')).toBe(0);
  });

  it('passes the rules of promtool check metrics, the default Node metrics included', async () => {
    const metrics = new DaemonMetrics();
    metrics.watchRate(new RateBudget({ fraction: 0.5, windowMs: 60_000 }));
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^nodejs_active_handles\{/m);
    expect(text).toMatch(/^websites_sync_rate_budget_ratio 0\.5$/m);
    expect(promlint(text)).toEqual([]);
  });

  it('lint catches what promtool catches (the checker can fail)', () => {
    const bad = [
      '# HELP x_requests requests',
      '# TYPE x_requests counter',
      'x_requests 1',
      '# HELP y_handles_total handles',
      '# TYPE y_handles_total gauge',
      'y_handles_total 2',
      '# TYPE z_latency_ms gauge',
      'z_latency_ms 3',
    ].join('\n');
    expect(promlint(bad)).toEqual([
      'x_requests: counter metrics should have "_total" suffix',
      'y_handles_total: non-counter metrics should not have "_total" suffix',
      'z_latency_ms: no help text',
      'z_latency_ms: metric names should not contain abbreviated units',
    ]);
  });
});
