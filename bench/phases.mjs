// Where the CPU of a plan goes: the stages of `websites-sync --once --dry-run` run one after the other
// in this process, each measured with process.cpuUsage() (garbage collection on helper threads
// included). Prints JSON: CPU and wall milliseconds per stage.
import { setRunOptions } from '../dist/cli/v8-options.js';
import { loadManifest } from '../dist/manifest/index.js';
import { computePlan } from '../dist/plan/index.js';
import { connectService as connect } from '../dist/service/index.js';
import { loadState } from '../dist/state/index.js';
import { API_KEY, PASSWORD_ENV, SECRET } from './lib/fixtures.mjs';

const { url, manifest, state } = JSON.parse(process.argv[2]);
const phases = {};
const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
async function measure(name, work) {
  const [cpuAt, wallAt] = [cpu(), performance.now()];
  const result = await work();
  phases[name] = { cpuMs: cpu() - cpuAt, wallMs: performance.now() - wallAt };
  return result;
}

// The V8 options the CLI sets once it has started (src/cli/v8-options.ts), as `--once` sets them.
setRunOptions(false); // the simulator: plain http on this machine
const client = connect({
  baseUrl: url,
  apiKey: API_KEY,
  version: 'bench',
  timeoutMs: 30_000,
  concurrency: 8,
});
const { desired } = await measure('manifest', () => loadManifest(manifest, PASSWORD_ENV));
const loaded = await measure('state', () => loadState(state, url, SECRET));
const current = await measure('listing', () => client.service.listWebsites());
const plan = await measure('plan', () =>
  computePlan({ desired, current, state: loaded.state, prune: false }),
);
await client.close();
process.stdout.write(JSON.stringify({ phases, changes: plan.changes.length }));
