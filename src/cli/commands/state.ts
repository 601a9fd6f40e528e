import { compareText, oneLine, shownUrl } from '../../model/index.js';
import {
  accountsOf,
  describeHolder,
  type HeldBy,
  ofAccounts,
  openStateStore,
  type StateStore,
  type StoreContents,
  type StoredState,
  sameBaseUrl,
} from '../../state/index.js';
import type { Config } from '../args.js';
import { EXIT, UsageError } from '../errors.js';
import type { Io } from '../io.js';
import { holderCommand, openStoreFromConfig, type StateLocation, stateLocation } from '../state-store.js';

/**
 * `state show`: who holds the lock, what is protected, which deletes are pending and since when, for
 * either backend. `state migrate`: a state and its backups copied between a file and PostgreSQL.
 */
export async function runState(config: Config, io: Io): Promise<number> {
  return config.stateAction === 'migrate' ? migrate(config, io) : show(config, io);
}

async function show(config: Config, io: Io): Promise<number> {
  const misplaced = (['from', 'to', 'force'] as const).find((name) => config[name]);
  if (misplaced) {
    throw new UsageError(`state show: --${misplaced} belongs to state migrate; nothing was read or changed`);
  }
  const store = await openStoreFromConfig(config, io, config.baseUrl ? { baseUrl: config.baseUrl } : {});
  try {
    const [holders, contents] = await Promise.all([store.holders(), store.contents()]);
    const states = contents.states.filter(
      (state) => !config.baseUrl || sameBaseUrl(state.base_url, config.baseUrl),
    );
    const lines = [`State: ${store.shown}`, ...holderLines(holders)];
    if (states.length === 0)
      lines.push(`No state${config.baseUrl ? ` for ${shownUrl(config.baseUrl)}` : ''} yet.`);
    for (const state of states) lines.push(...accountLines(state));
    const backups = contents.backups.filter(
      (b) => !config.baseUrl || sameBaseUrl(b.base_url, config.baseUrl),
    );
    lines.push(`Backups of deleted websites: ${backups.length} (${store.backupsShown})`);
    io.stdout.write(`${lines.join('\n')}\n`);
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

function holderLines(holders: readonly HeldBy[]): string[] {
  if (holders.length === 0) return ['Lock: free'];
  return holders.map((h) => `${h.role === 'leader' ? 'Leader' : 'Lock'}: held by ${describeHolder(h)}`);
}

function accountLines(state: StoredState): string[] {
  const protectedSites = Object.entries(state.protected ?? {});
  const pending = Object.entries(state.pending_deletes ?? {}).sort(([, a], [, b]) =>
    compareText(a.since, b.since),
  );
  return [
    `Account ${shownUrl(state.base_url)}:`,
    `  websites with recorded write-only fields: ${Object.keys(state.websites).length}`,
    `  protected: ${protectedSites.length}`,
    ...protectedSites.map(([id, entry]) => `    ${oneLine(entry.domain)} (id ${id})`),
    `  pending deletes: ${pending.length}`,
    ...pending.map(
      ([id, entry]) =>
        `    ${oneLine(entry.domain)} (id ${id}) planned for deletion since ${oneLine(entry.since)}`,
    ),
  ];
}

async function migrate(config: Config, io: Io): Promise<number> {
  const configured = await stateLocation(config, io);
  const from = config.from === undefined ? configured : { location: config.from, source: '--from' };
  const to = config.to === undefined ? configured : { location: config.to, source: '--to' };
  if (from.location === to.location) {
    throw new UsageError(
      'state migrate: --from and --to are the same state; name the other side (a file path or a postgres:// URL)',
    );
  }
  const [source, target] = [await open(from), await open(to)];
  try {
    const contents = chosen(await source.contents(), config.baseUrl);
    // A mistyped --from (or a --base-url of no account there) would copy nothing: with --force, a wipe.
    if (contents.states.length === 0 && contents.backups.length === 0) {
      throw new UsageError(
        `state migrate: ${source.shown} holds no state and no backups${config.baseUrl === undefined ? '' : ` for ${shownUrl(config.baseUrl)}`}; check --from (and --base-url); nothing was changed`,
      );
    }
    const replaced = await target.replaced(contents);
    if (!config.force && replaced.length > 0) {
      throw new UsageError(
        `state migrate: ${target.shown} already holds the state or backups of ${replaced.map((account) => shownUrl(account)).join(', ')}; nothing was changed. Add --force to replace them with those of ${source.shown} (other accounts there are kept)`,
      );
    }
    await target.replace(contents);
    const lost = compare(contents, ofAccounts(await target.contents(), accountsOf(contents)));
    if (lost.length > 0)
      throw new Error(`state migrate: the copy differs from ${source.shown}: ${lost.join('; ')}`);
    io.stderr.write(
      `Copied ${contents.states.length} account state(s) and ${contents.backups.length} backup(s) from ${source.shown} to ${target.shown}, and read them back: identical. ${source.shown} is left as it was.\n`,
    );
    return EXIT.ok;
  } finally {
    await Promise.all([source.close(), target.close()]);
  }
}

function open({ location, source }: StateLocation): Promise<StateStore> {
  return openStateStore({ location, source, command: holderCommand() });
}

/** `--base-url`: one account's state and backups; else everything. */
function chosen(contents: StoreContents, baseUrl: string | undefined): StoreContents {
  if (baseUrl === undefined) return contents;
  return {
    states: contents.states.filter((state) => sameBaseUrl(state.base_url, baseUrl)),
    backups: contents.backups.filter((entry) => sameBaseUrl(entry.base_url, baseUrl)),
  };
}

/** What differs between what was copied and what the target now holds, field by field. */
function compare(copied: StoreContents, held: StoreContents): string[] {
  const key = (state: StoredState) => state.base_url;
  const normal = (value: unknown) => JSON.stringify(value, (_k, v: unknown) => (isPlain(v) ? sorted(v) : v));
  const byAccount = new Map(held.states.map((state) => [key(state), normal(state)]));
  const problems = copied.states
    .filter((state) => byAccount.get(key(state)) !== normal(state))
    .map((state) => `the state of ${state.base_url}`);
  if (normal(copied.backups) !== normal(held.backups)) problems.push('the backups');
  return problems;
}

function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sorted(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
