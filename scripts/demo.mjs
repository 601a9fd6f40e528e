// `npm run demo`: start the simulator, plan, apply, and plan again to show the account converged.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator } from '../dist/simulator/index.js';

const cli = new URL('../dist/cli/main.js', import.meta.url).pathname;
const manifest = new URL('../examples/websites.yaml', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'websites-sync-demo-'));
const simulator = await startSimulator({ apiKey: 'demo-key', websites: [{ domain: 'legacy.example.com' }] });

// Bold only for a person at a terminal, by the CLI's own rule (FORCE_COLOR, then NO_COLOR and a TTY).
const force = process.env.FORCE_COLOR;
const color =
  force !== undefined && force !== ''
    ? force !== '0' && force !== 'false'
    : process.stdout.isTTY === true && !process.env.NO_COLOR && process.env.TERM !== 'dumb';
const bold = (text) => (color ? `\u001b[1m${text}\u001b[0m` : text);

// The simulator runs in this process, so the CLI must run beside it, not block it.
async function step(title, args) {
  console.log(`\n${bold(`$ websites-sync ${args.join(' ')}`)}   # ${title}`);
  const child = spawn(process.execPath, [cli, ...args], {
    stdio: 'inherit',
    env: {
      ...process.env,
      WEBSITES_SYNC_BASE_URL: simulator.url,
      WEBSITES_SYNC_API_KEY: 'demo-key',
      WEBSITES_SYNC_MANIFEST: manifest,
      WEBSITES_SYNC_STATE_FILE: join(dir, 'state.json'),
      WEBSITES_SYNC_LOG_LEVEL: 'warn',
    },
  });
  const status = await new Promise((resolve) => child.on('exit', resolve));
  console.log(`(exit ${status})`);
  // A demo that shows a failure must not look like a success to whoever runs it (or a CI step).
  if (status !== 0) throw new Error(`the step "${title}" exited ${status}; expected 0`);
}

try {
  console.log(`simulator listening on ${simulator.url} with one website already on the account`);
  await step('what would change?', ['--once', '--dry-run']);
  await step('apply it', ['--once']);
  await step('plan again: nothing left to do', ['--once', '--dry-run', '--detailed-exitcode']);
  console.log(`\nrequests the simulator received: ${simulator.requests.length}`);
} catch (error) {
  console.error(`\ndemo failed: ${error.message}`);
  process.exitCode = 1;
} finally {
  await simulator.close();
  rmSync(dir, { recursive: true, force: true });
}
