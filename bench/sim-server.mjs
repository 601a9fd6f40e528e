// The simulator in a process of its own, so that its CPU and memory never count as the tool's.
// Started by bench/lib/sim.mjs with fork(); the configuration arrives as JSON in argv[2] and the
// request log is read over the IPC channel.
import { startSimulator } from '../dist/simulator/index.js';
import { API_KEY, seedOf, websites } from './lib/fixtures.mjs';

const config = JSON.parse(process.argv[2] ?? '{}');
const drift = (every) => (every ? (i) => i % every === 0 : undefined);
const started = performance.now();
const simulator = await startSimulator({
  apiKey: API_KEY,
  // `driftEvery: 10`: every 10th website has its e-mail setting flipped on the account (10% changed).
  websites: seedOf(websites(config.websites ?? 0, drift(config.driftEvery))),
  defaultPerPage: 10,
  faults: { latencyMs: config.latencyMs ?? 0 },
  rateLimit: config.rateLimit,
});
const seedMs = performance.now() - started;

/**
 * What a request was for: a list page, a domain lookup (`search=`), the account's plan (`account`, once
 * per run), a website's traffic before its delete (`stats`, once per delete), or anything else.
 */
function kindOf(request) {
  if (request.method === 'GET' && request.path === '/api/v1/account') return 'account';
  if (request.method === 'GET' && request.path.startsWith('/api/v1/stats/')) return 'stats';
  if (request.method !== 'GET' || request.path !== '/api/v1/websites') return request.method.toLowerCase();
  return request.query.search === undefined ? 'list' : 'search';
}

/** Who sent a request: the tool (its User-Agent) or another client of the same key. */
const senderOf = (request) =>
  request.headers['user-agent']?.startsWith('websites-sync/') ? 'tool' : 'other';

/** The log as compact rows: [arrival (ms since the epoch), status, kind, sender]. */
function log() {
  return simulator.requests.map((r) => [r.at, r.status, kindOf(r), senderOf(r)]);
}

process.on('message', async (message) => {
  switch (message.command) {
    case 'log':
      process.send({ id: message.id, log: log() });
      break;
    case 'clear':
      simulator.clearRequests();
      process.send({ id: message.id });
      break;
    case 'close':
      await simulator.close();
      process.send({ id: message.id });
      process.disconnect();
      break;
  }
});
// Never outlive the benchmark, even when it stops half-way.
process.on('disconnect', () => process.exit(0));
process.send({ ready: true, url: simulator.url, seedMs });
