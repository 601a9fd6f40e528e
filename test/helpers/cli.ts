import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonOutputSchema } from '../../src/cli/json-output-schema.js';
import type { Simulator } from '../../src/simulator/index.js';

/** The built binary: end-to-end tests run exactly what users run (`npm test` builds first). */
export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A running CLI: its process (to signal it part-way), its output so far, and its end. */
export interface StartedCli {
  child: ChildProcess;
  output(): { stdout: string; stderr: string };
  done: Promise<CliResult & { signal: string | null }>;
}

/**
 * Starts the CLI (optionally behind a wrapper command such as `unshare`, or with options for Node
 * itself) and collects its output. It is spawned asynchronously: the simulator runs in the test's own
 * process, so a synchronous spawn would block it from answering.
 */
export function startCli(
  args: string[],
  env: Record<string, string | undefined> = {},
  wrapper: string[] = [],
  cwd?: string,
  nodeOptions: string[] = [],
): StartedCli {
  const [command, ...rest] = [...wrapper, process.execPath, ...nodeOptions, CLI, ...args] as [
    string,
    ...string[],
  ];
  const child = spawn(command, rest, {
    ...(cwd ? { cwd } : {}),
    env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const done = new Promise<CliResult & { signal: string | null }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, output: () => ({ stdout, stderr }), done };
}

/**
 * Runs the CLI to its end (in `cwd`, or the test's own directory). A JSON plan it prints must be
 * exactly what the docs describe.
 */
export async function runCli(
  args: string[],
  env: Record<string, string | undefined> = {},
  cwd?: string,
): Promise<CliResult> {
  const { code, stdout, stderr } = await startCli(args, env, [], cwd).done;
  if (printsJsonPlan(args) && stdout.startsWith('{')) checkDocumented(stdout);
  return { code, stdout, stderr };
}

/** A run (not export, which prints YAML) asked for `--output json`. */
function printsJsonPlan(args: string[]): boolean {
  const asked = args.some((arg, i) => arg === 'json' && ['-o', '--output'].includes(args[i - 1] ?? ''));
  return (asked || args.includes('--output=json')) && !args.includes('export');
}

/**
 * Every JSON plan the tests see parses, strictly, with the schema docs/reference/json-plan.md is
 * generated from: a key added to the output without being described there fails the test that met it.
 */
function checkDocumented(stdout: string): void {
  let document: unknown;
  try {
    document = JSON.parse(stdout);
  } catch {
    return; // Not a plan (an error message): the test itself says what it expected.
  }
  const checked = jsonOutputSchema.safeParse(document);
  if (!checked.success) {
    throw new Error(
      `the JSON plan holds what docs/reference/json-plan.md does not describe: ${checked.error.message}`,
    );
  }
}

/** The environment that points the CLI at a simulator, with the manifest and state file in `dir`. */
export function toolEnv(simulator: Simulator, dir: string): Record<string, string> {
  return {
    WEBSITES_SYNC_BASE_URL: simulator.url,
    WEBSITES_SYNC_API_KEY: simulator.apiKey,
    WEBSITES_SYNC_MANIFEST: join(dir, 'websites.yaml'),
    WEBSITES_SYNC_STATE_FILE: join(dir, 'state.json'),
  };
}
