import { sayCondition, shownUrl } from '../model/index.js';
import { type HeldLifecycle, isDoubtful, keepAside, keptCopies, protectionsNotInForce } from './discarded.js';
import { type LoadedState, loadState } from './file.js';
import { whereItLands } from './private-file.js';
import type { StateData } from './state.js';
import type { DoubtfulProtections, ReadOptions } from './store-types.js';

// The state file is the only record of protections of websites no longer in the manifest and of
// pending deletes. One the tool cannot use is never overwritten: a run that may write moves it aside
// before anything is sent, and every run says so at warn level, with what it held and how to get it
// back. Until it is restored or removed, deletes of what it protects need --force (checkDoubtfulDeletes).

export interface ReadStateOptions extends ReadOptions {
  statePath: string;
}

export async function readState(
  given: ReadStateOptions,
): Promise<{ state: StateData; doubt: DoubtfulProtections; missing: boolean }> {
  // Named where it really is: the advice to move a kept copy back must not replace a symlink.
  const options = { ...given, statePath: await whereItLands(given.statePath) };
  const { statePath, logger } = options;
  const loaded = await loadState(statePath, options.baseUrl, options.secret);
  if (loaded.discarded && !loaded.unusable) {
    // A converged account whose manifest has no write-only field leaves no state to write: every
    // resync of a daemon finds none again.
    sayCondition(options.conditions, logger, {
      key: `state:${statePath}:${loaded.discarded}`,
      level: 'info',
      fields: { stage: 'state', path: statePath, reason: loaded.discarded },
      message: 'write-only fields will be resent once',
    });
  }
  let keptAs: string | undefined;
  if (loaded.unusable && !options.dryRun) {
    keptAs = await keepAside(statePath, new Date((options.now ?? Date.now)()));
  }
  if (loaded.unusable)
    logger.warn({ stage: 'state', path: statePath }, unusableMessage(options, loaded, keptAs));
  const earlier = (await keptCopies(statePath)).filter((copy) => copy.path !== keptAs);
  const files: Array<{ path: string; held?: HeldLifecycle }> = [...earlier];
  if (loaded.unusable) files.push({ path: keptAs ?? statePath, ...heldOf(loaded) });
  const doubt = doubtOf(files, loaded.state, options, earlier);
  return { state: loaded.state, doubt, missing: loaded.missing === true };
}

function heldOf(loaded: LoadedState): { held?: HeldLifecycle } {
  return loaded.unusable?.held ? { held: loaded.unusable.held } : {};
}

function unusableMessage(options: ReadStateOptions, loaded: LoadedState, keptAs: string | undefined): string {
  const { statePath } = options;
  const { reason = '', held, partial = false } = loaded.unusable ?? {};
  const holds = held?.readable
    ? `It holds ${held.protectedIds.length} protection(s) and ${held.pendingDeletes} pending delete(s) (delete_delay)`
    : 'What protections and pending deletes it holds cannot be read';
  const notInForce = partial ? 'what cannot be read is NOT in force' : 'they are NOT in force';
  const where = keptAs
    ? `It was kept as ${keptAs}; a new state file is written once a run has something to record`
    : 'It is left as it is (a dry run writes nothing; the next real run keeps it aside first)';
  const file = keptAs ?? statePath;
  const foreign = !partial && held?.readable && held.baseUrl !== undefined;
  const back = foreign
    ? `${keptAs ? `mv ${keptAs} ${statePath} and ` : ''}run with --base-url ${shownUrl(held.baseUrl ?? '')} if that is this service`
    : `repair ${file} (or take it from a backup)${keptAs ? ` and move it back to ${statePath}` : ''}`;
  return `the state file ${statePath} was ${partial ? 'only partly' : 'not'} used: ${reason}. ${holds}; ${notInForce} for this run. ${where}. To get them back: ${back}. Until then, deleting a website it protects needs --force`;
}

function doubtOf(
  files: Array<{ path: string; held?: HeldLifecycle }>,
  state: StateData,
  options: ReadStateOptions,
  earlier: Array<{ path: string; held?: HeldLifecycle }>,
): DoubtfulProtections {
  const doubt = { ids: [] as string[], domains: [] as string[], unknown: false, files: [] as string[] };
  for (const file of files) {
    const notInForce = protectionsNotInForce(file.held, state);
    if (!isDoubtful(notInForce)) continue;
    doubt.ids.push(...notInForce.ids);
    doubt.domains.push(...notInForce.domains);
    doubt.unknown ||= notInForce.unknown;
    doubt.files.push(file.path);
    if (earlier.includes(file)) {
      const what = notInForce.unknown
        ? 'cannot be read'
        : `protects ${notInForce.ids.length} website(s) this state does not`;
      options.logger.warn(
        { stage: 'state', path: file.path },
        `${file.path}, a state file an earlier run could not use and kept aside, ${what}; those protections are NOT in force. Restore it (mv ${file.path} ${options.statePath}) if it is this service's, or remove it once those websites may be deleted; until then, deleting them needs --force`,
      );
    }
  }
  return doubt;
}
