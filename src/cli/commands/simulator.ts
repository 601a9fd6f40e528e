// `websites-sync simulator`: serves the simulator until SIGINT/SIGTERM.

import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { readWholeFile, type WholeFileSpec, wholeReadRefusal } from '../../model/index.js';
import {
  type EndpointFault,
  type FaultOptions,
  type SeedWebsite,
  type SimulatorOptions,
  startSimulator,
} from '../../simulator/index.js';
import { explainParseError } from '../argv.js';
import { exitCodeOf } from '../interrupt.js';

export interface SimulatorCommandIo {
  stdout?: { write(text: string): unknown };
  stderr?: { write(text: string): unknown };
  env?: NodeJS.ProcessEnv;
  /** Stops the simulator like a signal would (for tests and embedding). */
  signal?: AbortSignal;
}

const HELP = `Usage: websites-sync simulator [options]

Serves an in-memory model of the website API on {url}/api/v1/websites.

Options:
  --port N                    port to listen on (default 8080; 0 picks a free one)
  --host H                    address to bind (default 127.0.0.1)
  --api-key KEY               the accepted API key (default $SIMULATOR_API_KEY, else test-key)
  --seed-file PATH            websites to start with: a JSON or YAML list of
                              {domain, privacy, email, exclude_bots, exclude_params, exclude_ips, password}
                              in the service's own terms (privacy 0, 1 or 2; email 0 or 1), not the manifest's;
                              stored_as_written: true keeps the domain exactly as given
                              (a record stored before the service lower-cased names);
                              visitors_last_30d: the traffic /api/v1/stats/{id} reports
  --latency MS                delay added to every API answer
  --rate-limit N/SECONDS      throttle to N requests per SECONDS per key (e.g. 60/60)
  --list-shape SHAPE          resource (default) or paginator
  --max-websites N            plan limit of the account, told by /api/v1/account (-1: unlimited, the default)
  --id-prefix P               show ids as strings P1, P2, … instead of integers (the id's
                              format is the service's to choose; clients treat it as opaque)
  --missing-update-status S   404 (default) or 500: how an update of a missing id is answered
                              (500 as a public variant of the service does)
  --taken DOMAIN              a domain held by another account (repeatable)
  --error-rate F              fraction of API requests answered 500/502/503
  --reset-rate F              fraction whose connection is reset before taking effect
  --reset-after-commit-rate F fraction of stores/updates/deletes applied, then reset
  --html-rate F               fraction answered with an HTML page instead of JSON
  --login-redirect-rate F     fraction redirected (302) to the HTML login page
  --throttle-rate F           fraction answered 429 with Retry-After, besides --rate-limit
  --hang-rate F               fraction accepted and never answered (client timeouts)
  --fault-seed N              seed of the fault sequence (default 1)
  --account-fault F           /api/v1/account answers 404 (an older service), 500, 503 (a gateway down for now),
                              or unreadable (a 200 without the plan)
  --stats-fault F             /api/v1/stats/{id} answers 404, 500 (as one public version does), 503, or unreadable
  --rotate-key-after N        regenerate the key after N accepted API requests (the old key then answers 401)
  --rotated-key KEY           the key it is regenerated to (default: the key followed by -rotated)
  -h, --help                  show this help
`;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'api-key': { type: 'string' },
  'seed-file': { type: 'string' },
  latency: { type: 'string' },
  'rate-limit': { type: 'string' },
  'list-shape': { type: 'string' },
  'max-websites': { type: 'string' },
  'id-prefix': { type: 'string' },
  'missing-update-status': { type: 'string' },
  taken: { type: 'string', multiple: true },
  'error-rate': { type: 'string' },
  'reset-rate': { type: 'string' },
  'reset-after-commit-rate': { type: 'string' },
  'html-rate': { type: 'string' },
  'login-redirect-rate': { type: 'string' },
  'throttle-rate': { type: 'string' },
  'hang-rate': { type: 'string' },
  'fault-seed': { type: 'string' },
  'account-fault': { type: 'string' },
  'stats-fault': { type: 'string' },
  'rotate-key-after': { type: 'string' },
  'rotated-key': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true }>>['values'];

class UsageError extends Error {}

function integer(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got "${value}"`);
  }
  return n;
}

function fraction(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !(n >= 0 && n <= 1))
    throw new UsageError(`--${name} must be between 0 and 1, got "${value}"`);
  return n;
}

function rateLimit(value: string | undefined): SimulatorOptions['rateLimit'] {
  if (value === undefined) return undefined;
  const match = /^(\d+)\/(\d+(?:\.\d+)?)$/.exec(value);
  if (!match || !(Number(match[2]) > 0)) {
    throw new UsageError(`--rate-limit must look like N/SECONDS (e.g. 60/60), got "${value}"`);
  }
  return { limit: Number(match[1]), windowMs: Number(match[2]) * 1000 };
}

function faultOptions(values: Values): FaultOptions {
  const faults: FaultOptions = {
    seed: integer('fault-seed', values['fault-seed'], 0, 2 ** 32 - 1),
    latencyMs: integer('latency', values.latency, 0, 3_600_000),
    errorRate: fraction('error-rate', values['error-rate']),
    resetRate: fraction('reset-rate', values['reset-rate']),
    resetAfterCommitRate: fraction('reset-after-commit-rate', values['reset-after-commit-rate']),
    htmlRate: fraction('html-rate', values['html-rate']),
    loginRedirectRate: fraction('login-redirect-rate', values['login-redirect-rate']),
    throttleRate: fraction('throttle-rate', values['throttle-rate']),
    hangRate: fraction('hang-rate', values['hang-rate']),
    accountFault: endpointFault('account-fault', values['account-fault']),
    statsFault: endpointFault('stats-fault', values['stats-fault']),
    rotateKeyAfter: integer('rotate-key-after', values['rotate-key-after'], 1, Number.MAX_SAFE_INTEGER),
    rotatedKey: rotatedKey(values['rotated-key']),
  };
  return Object.fromEntries(Object.entries(faults).filter(([, v]) => v !== undefined));
}

function rotatedKey(value: string | undefined): string | undefined {
  if (value === undefined || /^[\x21-\x7e]+$/.test(value)) return value;
  throw new UsageError('--rotated-key must be printable ASCII without spaces (it travels in a header)');
}

function endpointFault(name: string, value: string | undefined): EndpointFault | undefined {
  if (value === undefined) return undefined;
  if (value === '404' || value === '500' || value === '503') return Number(value) as 404 | 500 | 503;
  if (value === 'unreadable') return value;
  throw new UsageError(`--${name} must be 404, 500, 503 or unreadable, got "${value}"`);
}

/** The plan limit: a count, or -1 for unlimited (the service's own spelling). */
function maxWebsites(value: string | undefined): number | undefined {
  return value === '-1' ? undefined : integer('max-websites', value, 0, Number.MAX_SAFE_INTEGER);
}

/** A seed as large as a manifest may be: one of 100,000 websites is about 20 MiB as JSON. */
const SEED_FILE: WholeFileSpec = {
  holds: 'a seed (a list of websites)',
  maxBytes: 64 * 1024 * 1024,
  room: 'one of 100,000 websites is about 20 MiB',
};

async function readSeedFile(path: string): Promise<SeedWebsite[]> {
  let text: string;
  try {
    // Without blocking (a FIFO with no writer), and by the one rule of files read whole.
    const handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    try {
      const read = await readWholeFile(handle, SEED_FILE);
      if (!('bytes' in read)) throw new UsageError(wholeReadRefusal(`--seed-file: ${path}`, read, SEED_FILE));
      text = read.bytes.toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read --seed-file ${path}: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new UsageError(
      `--seed-file ${path} is not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'}: ${(error as Error).message}`,
    );
  }
  const list = Array.isArray(data) ? data : (data as { websites?: unknown } | null)?.websites;
  if (!Array.isArray(list)) throw new UsageError(`--seed-file ${path} must hold a list of websites`);
  list.forEach((entry, i) => {
    if (typeof entry !== 'object' || entry === null || typeof (entry as SeedWebsite).domain !== 'string') {
      throw new UsageError(`--seed-file ${path}: entry ${i} must be an object with a "domain" string`);
    }
    const visitors = (entry as SeedWebsite).visitors_last_30d;
    if (visitors !== undefined && !(Number.isSafeInteger(visitors) && visitors >= 0)) {
      throw new UsageError(`--seed-file ${path}: entry ${i}: visitors_last_30d must be a whole number ≥ 0`);
    }
  });
  return list as SeedWebsite[];
}

async function buildOptions(values: Values, env: NodeJS.ProcessEnv): Promise<SimulatorOptions> {
  const shape = values['list-shape'];
  if (shape !== undefined && shape !== 'resource' && shape !== 'paginator') {
    throw new UsageError(`--list-shape must be resource or paginator, got "${shape}"`);
  }
  return {
    host: values.host ?? '127.0.0.1',
    port: integer('port', values.port, 0, 65535) ?? 8080,
    apiKey: values['api-key'] ?? env.SIMULATOR_API_KEY ?? 'test-key',
    listShape: shape ?? 'resource',
    maxWebsites: maxWebsites(values['max-websites']),
    ...(values['id-prefix'] ? { idPrefix: values['id-prefix'] } : {}),
    missingUpdateStatus: missingUpdateStatus(values['missing-update-status']),
    takenDomains: values.taken ?? [],
    websites: values['seed-file'] ? await readSeedFile(values['seed-file']) : [],
    rateLimit: rateLimit(values['rate-limit']),
    faults: faultOptions(values),
  };
}

function missingUpdateStatus(value: string | undefined): 404 | 500 {
  if (value === undefined || value === '404') return 404;
  if (value === '500') return 500;
  throw new UsageError(`--missing-update-status must be 404 or 500, got "${value}"`);
}

/** The simulator's options; an unknown one is named with the closest it takes, as for every command. */
function parseOptions(argv: string[]): Values {
  try {
    return parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(explainParseError(error as Error, 'simulator', Object.keys(OPTIONS)));
  }
}

/** Resolves with the signal that stopped the simulator, or undefined when `signal` did. */
function waitForStop(signal: AbortSignal | undefined): Promise<NodeJS.Signals | undefined> {
  return new Promise((resolve) => {
    const stop = (by?: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      signal?.removeEventListener('abort', aborted);
      resolve(by);
    };
    const aborted = (): void => stop();
    // A handler is also what makes the signals work at all as PID 1 in a container.
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (signal?.aborted) stop();
    else signal?.addEventListener('abort', aborted, { once: true });
  });
}

export async function runSimulatorCommand(argv: string[], io: SimulatorCommandIo = {}): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  let options: SimulatorOptions;
  try {
    const values = parseOptions(argv);
    if (values.help) {
      stdout.write(HELP);
      return 0;
    }
    options = await buildOptions(values, io.env ?? process.env);
  } catch (error) {
    stderr.write(`websites-sync simulator: ${(error as Error).message}\n`);
    return 1;
  }
  let simulator: Awaited<ReturnType<typeof startSimulator>>;
  try {
    simulator = await startSimulator(options);
  } catch (error) {
    stderr.write(`websites-sync simulator: cannot start: ${(error as Error).message}\n`);
    return 1;
  }
  // Handlers first, then the announcement: whoever stops the simulator as soon as it is announced (a
  // supervisor, a test) must not meet a signal's default action (killed, no clean close).
  const stopped = waitForStop(io.signal);
  stdout.write(`simulator listening on ${simulator.url} (api key: ${simulator.apiKey})\n`);
  const stoppedBy = await stopped;
  await simulator.close();
  return stoppedBy ? exitCodeOf(stoppedBy) : 0;
}
