// The daemon's leak check: the same daemon as `websites-sync` builds (client, metrics, Daemon), driven
// run after run in this process, started with --expose-gc so that the live heap can be measured after
// a full collection. RSS (measured on the real process) also counts garbage V8 has not collected yet;
// the live heap does not, so a leak shows here however lazy the collector is.
import pino from 'pino';
import { Daemon, DaemonMetrics } from '../dist/daemon/index.js';
import { connectService as connect } from '../dist/service/index.js';
import { openStateStore } from '../dist/state/index.js';
import { API_KEY, PASSWORD_ENV, SECRET } from './lib/fixtures.mjs';

const { url, manifest, state, runs, checkpoint } = JSON.parse(process.argv[2]);
const metrics = new DaemonMetrics();
const client = connect({
  baseUrl: url,
  apiKey: API_KEY,
  version: 'bench',
  timeoutMs: 30_000,
  concurrency: 8,
  hooks: metrics.hooks,
});
const daemon = new Daemon({
  manifest,
  env: PASSWORD_ENV,
  service: client.service,
  baseUrl: url,
  secret: SECRET,
  store: await openStateStore({ location: state }),
  prune: false,
  force: false,
  dryRun: false,
  concurrency: 8,
  intervalMs: 3_600_000,
  logger: pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: true })),
  metrics,
});
const idle = () => new Promise((resolve) => daemon.once('idle', resolve));
const liveHeap = () => {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed;
};

const first = idle();
await daemon.start();
await first;
const heap = {};
for (let run = 1; run <= runs; run++) {
  const done = idle();
  daemon.trigger('signal');
  await done;
  if (daemon.lastRun?.result !== 'success') throw new Error(`run ${run}: ${daemon.lastRun?.result}`);
  if (run === checkpoint) heap.early = liveHeap();
}
heap.late = liveHeap();
await daemon.stop(5_000);
await client.close();
process.stdout.write(JSON.stringify(heap));
