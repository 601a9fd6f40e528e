import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import { manifestText } from './fixture.js';

// The built CLI as a container runs it: the key in a file (--api-key-file), rotated in the service's
// web interface, then written to the file. The same process goes on with the new key.
const MAIN = join(import.meta.dirname, '../../dist/cli/main.js');
const NEW_KEY = 'regenerated-in-the-web-ui';

type Line = Record<string, unknown> & { msg: string };

let cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

function startDaemon(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const lines: Line[] = [];
  const waiters: Array<() => void> = [];
  createInterface({ input: child.stderr! }).on('line', (text) => {
    stderr += `${text}\n`;
    lines.push(JSON.parse(text) as Line);
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  /** The first line after the `after`-th that matches. */
  const next = async (after: number, match: (line: Line) => boolean): Promise<Line> => {
    for (;;) {
      const found = lines.slice(after).find(match);
      if (found) return found;
      await new Promise<void>((wake) => waiters.push(wake));
    }
  };
  return { child, lines, exited, next, stderr: () => stderr };
}

const isRun = (line: Line) => line.msg.startsWith('run ') && 'result' in line;

/**
 * A simulator, a manifest of one website and the daemon on them, with the key in a file
 * (`--api-key-file`) or in WEBSITES_SYNC_API_KEY; all of it stopped and removed after the test.
 */
async function daemonOnSimulator(keyIn: 'file' | 'env', args: string[] = []) {
  const sim = await startSimulator({});
  cleanup.push(() => sim.close());
  const dir = await mkdtemp(join(tmpdir(), `websites-sync-key-${keyIn}-`));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const manifest = join(dir, 'websites.yaml');
  const keyFile = join(dir, 'api-key');
  await writeFile(manifest, manifestText([{ domain: 'a.example.com' }]));
  if (keyIn === 'file') await writeFile(keyFile, `${sim.apiKey}\n`);
  const cli = startDaemon(
    [
      ...['--manifest', manifest, '--base-url', sim.url, '--state-file', join(dir, 'state.json')],
      ...(keyIn === 'file' ? ['--api-key-file', keyFile] : []),
      ...args,
    ],
    keyIn === 'env' ? { WEBSITES_SYNC_API_KEY: sim.apiKey } : {},
  );
  cleanup.push(async () => {
    if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
  });
  return { sim, keyFile, cli };
}

describe('daemon (built CLI): a key rotated, then written to --api-key-file', () => {
  it('goes on with the new key without a restart, and never shows it', async () => {
    expect(existsSync(MAIN), `${MAIN} is missing: build first (npm run build)`).toBe(true);
    const { sim, keyFile, cli } = await daemonOnSimulator('file', ['--listen', '127.0.0.1:0']);
    const serving = await cli.next(0, (line) => line.stage === 'health' && 'url' in line);
    const readyz = async () => (await fetch(`${String(serving.url)}/readyz`)).status;
    await cli.next(0, isRun);

    sim.setFaults({ rotateKeyAfter: 1, rotatedKey: NEW_KEY });
    let seen = cli.lines.length;
    cli.child.kill('SIGHUP');
    const refused = await cli.next(seen, isRun);
    expect(refused.result).toBe('failure');
    expect(refused.msg).toContain(`rotated or revoked`);
    expect(refused.msg).toContain(`Write the new key into ${keyFile} (--api-key-file)`);
    expect(await readyz()).toBe(503);

    await writeFile(keyFile, `${NEW_KEY}\n`);
    seen = cli.lines.length;
    cli.child.kill('SIGHUP');
    const renewed = await cli.next(seen, isRun);
    expect(renewed).toMatchObject({ result: 'success' });
    expect(await readyz()).toBe(200);

    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    expect(cli.stderr()).not.toContain(NEW_KEY);
  });

  it('a key file replaced by a FIFO nobody writes: the run is not blocked, the key in use stays', async () => {
    const { keyFile, cli } = await daemonOnSimulator('file');
    await cli.next(0, isRun);

    await unlink(keyFile);
    execFileSync('mkfifo', [keyFile]);
    const seen = cli.lines.length;
    cli.child.kill('SIGHUP');
    const warned = await cli.next(seen, (line) => line.level === 40 && line.msg.includes(keyFile));
    expect(warned.msg).toBe(
      `--api-key-file: ${keyFile} is a FIFO, not a regular file; give a regular file holding an API key, one line of at most 4096 characters; the key read before stays in use`,
    );
    expect(await cli.next(seen, isRun)).toMatchObject({ result: 'success' });
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });

  it('with the key in WEBSITES_SYNC_API_KEY, says to restart: the environment cannot change', async () => {
    const { sim, cli } = await daemonOnSimulator('env');
    await cli.next(0, isRun);
    sim.setFaults({ rotateKeyAfter: 1, rotatedKey: NEW_KEY });
    const seen = cli.lines.length;
    cli.child.kill('SIGHUP');
    const refused = await cli.next(seen, isRun);
    expect(refused.msg).toMatch(
      /rotated or revoked.*Restart the daemon with the new key in WEBSITES_SYNC_API_KEY: a key given in the environment is read only at start/,
    );
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });
});
