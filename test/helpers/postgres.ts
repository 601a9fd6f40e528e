import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

// A real PostgreSQL for the tests, never a mock: WEBSITES_SYNC_TEST_DATABASE_URL when set, else a
// throwaway cluster of Debian's PostgreSQL (initdb into a temporary folder, pg_ctl on a free loopback
// port), removed after. initdb and pg_ctl refuse to run as root: as root they run as `postgres`.

/** Debian's layout: /usr/lib/postgresql/VERSION/bin; the newest installed. */
function findBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0] ?? '15';
  return join(root, newest, 'bin');
}
const BIN = findBin();

export interface TestDatabase {
  /** Superuser URL of the database (no schema parameter). */
  url: string;
  /** A fresh schema name for one test: accounts and schemas never mix between tests. */
  schema(): string;
  /** `url` with `?schema=NAME`, as an operator writes it; as another user when one is given. */
  stateUrl(schema: string, as?: { user: string; password: string }): string;
  /** The password in `url`, which no output may show. */
  password: string;
  /** A query as the superuser (pg_terminate_backend, inspection). */
  query<T extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<T[]>;
  stop(): Promise<void>;
}

/** Whether the tests can have a server: told plainly, so CI fails instead of skipping. */
export function databaseAvailable(): boolean {
  return process.env.WEBSITES_SYNC_TEST_DATABASE_URL !== undefined || existsSync(join(BIN, 'initdb'));
}

/** In CI a missing server is a failure, never a silent skip. */
export const skipWithoutDatabase = !databaseAvailable() && process.env.CI !== 'true';

let counter = 0;
/** The throwaway cluster's superuser password. */
export const PASSWORD = 'pg-test-secret-7f3a';

export async function startTestDatabase(): Promise<TestDatabase> {
  const given = process.env.WEBSITES_SYNC_TEST_DATABASE_URL;
  const cluster = given ? undefined : await startCluster();
  const url = given ?? cluster?.url ?? '';
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  const prefix = `t${process.pid}_${Date.now().toString(36)}`;
  return {
    url,
    schema: () => `${prefix}_${++counter}`,
    password: decodeURIComponent(new URL(url).password),
    stateUrl: (schema, as) => {
      const built = new URL(url);
      if (as) {
        built.username = as.user;
        built.password = as.password;
      }
      built.searchParams.set('schema', schema);
      return built.href;
    },
    query: async (text, values) => (await admin.query(text, values)).rows,
    stop: async () => {
      await admin.end();
      cluster?.stop();
    },
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function owner(): [number, number] {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
  return [id('-u'), id('-g')];
}

function asPostgres(command: string, args: string[]): void {
  const root = process.getuid?.() === 0;
  const [file, argv] = root ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  execFileSync(file, argv, { stdio: 'pipe' });
}

async function startCluster(): Promise<{ url: string; stop(): void }> {
  if (!existsSync(join(BIN, 'initdb'))) {
    throw new Error(
      `no PostgreSQL for the tests: ${BIN}/initdb is missing; install Debian's postgresql or set WEBSITES_SYNC_TEST_DATABASE_URL`,
    );
  }
  // As root, the cluster runs as postgres, which must reach its folder: the test run's own temporary
  // folder (test/global-temp.ts) is private to root, so the cluster's goes in the system's (removed by
  // stop, like the run's).
  const base = process.getuid?.() === 0 ? '/tmp' : tmpdir();
  const dir = mkdtempSync(join(base, 'websites-sync-pg-'));
  chmodSync(dir, 0o700);
  if (process.getuid?.() === 0) chownSync(dir, ...owner());
  const data = join(dir, 'data');
  const port = await freePort();
  // A password, as in production: wrong credentials are refused, and the URL holds a secret to redact.
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, `${PASSWORD}\n`);
  if (process.getuid?.() === 0) chownSync(pwfile, ...owner());
  asPostgres(join(BIN, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '-A',
    'scram-sha-256',
    `--pwfile=${pwfile}`,
    '--no-sync',
    '-E',
    'UTF8',
  ]);
  const options = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c fsync=off -c max_connections=60`;
  asPostgres(join(BIN, 'pg_ctl'), ['-D', data, '-l', join(dir, 'log'), '-o', options, '-w', 'start']);
  return {
    url: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`,
    stop: () => {
      try {
        asPostgres(join(BIN, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Resolves with the match once the CLI's stderr (its JSON log lines) shows `pattern`; bounded. */
export function untilLogged(
  cli: { child: import('node:child_process').ChildProcess; output(): { stderr: string } },
  pattern: RegExp,
  timeoutMs = 20_000,
): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const look = () => {
      const match = cli.output().stderr.match(pattern);
      if (!match) return false;
      cleanup();
      resolve(match);
      return true;
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`not logged within ${timeoutMs} ms: ${pattern}\n${cli.output().stderr.slice(-3000)}`));
    }, timeoutMs);
    const onData = () => void look();
    const cleanup = () => {
      clearTimeout(timer);
      cli.child.stderr?.off('data', onData);
    };
    cli.child.stderr?.on('data', onData);
    look();
  });
}
