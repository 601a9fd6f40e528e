import { isPostgresUrl, passwordsInText } from '../state/index.js';
import { UsageError } from './errors.js';

// The state command's words, and the rule that keeps a database password off the command line.

export function stateAction(positionals: string[]): 'show' | 'migrate' {
  const [action, ...extra] = positionals;
  if ((action === 'show' || action === 'migrate') && extra.length === 0) return action;
  throw new UsageError(
    `state: ${action === undefined ? 'say what to do' : `"${positionals.join(' ')}" is not a state command`}; use: websites-sync state show, or websites-sync state migrate --from PATH|URL --to PATH|URL`,
  );
}

/** A password on the command line shows in `ps` and shell history: refused, as the API key is. */
export function refuseUrlPassword(values: Record<string, unknown>, sources: Record<string, string>): void {
  for (const name of ['state', 'from', 'to'] as const) {
    const text = values[name];
    if (typeof text !== 'string' || !sources[name]?.startsWith('-')) continue;
    // Before the host or as a `password` parameter: node-postgres takes either.
    if (isPostgresUrl(text) && passwordsInText(text).length > 0) {
      throw new UsageError(
        `${sources[name]}: a URL with a password is never accepted on the command line (it would show in \`ps\` and shell history); set WEBSITES_SYNC_STATE, or put the URL in a file named by --state-url-file (WEBSITES_SYNC_STATE_URL_FILE)`,
      );
    }
  }
}
