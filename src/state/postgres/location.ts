import { shownUrl } from '../../model/index.js';
import { StateLockError } from '../lock-error.js';

// `--state postgres://user:password@host:5432/db?schema=websites_sync`: everything but `schema` is the
// connection as PostgreSQL's own tools read it (sslmode, application_name…); `schema` is ours, the
// schema the tool's tables live in, so several tools (or environments) can share one database.

export const DEFAULT_SCHEMA = 'websites_sync';

export interface PostgresLocation {
  /** The URL as node-postgres takes it, without our `schema` parameter. It holds the password. */
  connectionString: string;
  schema: string;
  /** Fit to print: no user, no password. */
  shown: string;
  /**
   * Every password the URL holds, as decoded and as written (percent-encoded), for the Redactor: the
   * one before the host and a `password` parameter, which node-postgres takes too.
   */
  secrets: string[];
}

/** The query parameters node-postgres reads as a secret: never shown, never on a command line. */
const SECRET_PARAMETERS = ['password'];

/** The passwords of a postgres:// URL, as decoded and as written; empty when it holds none. */
function urlPasswords(url: URL): string[] {
  const raw = url.search
    .slice(1)
    .split('&')
    .flatMap((pair) =>
      SECRET_PARAMETERS.filter((name) => pair.startsWith(`${name}=`)).map((name) =>
        pair.slice(name.length + 1),
      ),
    );
  const decoded = [
    decodedOrAsIs(url.password),
    ...SECRET_PARAMETERS.flatMap((name) => url.searchParams.getAll(name)),
  ];
  return [...new Set([...decoded, url.password, ...raw])].filter((secret) => secret !== '');
}

/**
 * The passwords of a postgres:// URL as written, whether or not it parses (one that does not is
 * refused, but its password must not show in the refusal, nor be accepted on a command line).
 */
export function passwordsInText(text: string): string[] {
  try {
    return urlPasswords(new URL(text.trim()));
  } catch {
    const userinfo = /^[a-z]+:\/\/[^/@?#]*?:([^/@?#]*)@/i.exec(text.trim())?.[1];
    // As shownUrl masks it: a password with `#`, `?` or `/` (why the URL does not parse) runs from the
    // first `:` after the user to the last `@`.
    const upToLastAt = /^[a-z]+:\/\/[^:@]*:(.*)@[^@]*$/is.exec(text.trim())?.[1];
    const parameters = [...text.matchAll(/[?&]password=([^&#]*)/g)].map((m) => m[1] ?? '');
    const written = [userinfo ?? '', upToLastAt ?? '', ...parameters];
    return [...new Set([...written, ...written.map(decodedOrAsIs)])].filter((secret) => secret !== '');
  }
}

/** Not valid percent-encoding (`50%off`): node-postgres takes it as it is. */
function decodedOrAsIs(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function isPostgresUrl(text: string): boolean {
  return /^postgres(ql)?:\/\//i.test(text.trim());
}

/** A schema name is an identifier: quoted everywhere, but kept to what needs no quoting to type. */
const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;

export function parsePostgresUrl(text: string, name = '--state'): PostgresLocation {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    // Its credentials masked first (up to the last `@`: a password may hold `#` or `?`, which is why
    // it does not parse), then without its query: a `password` parameter is still a password.
    throw new StateLockError(
      `${name}: "${shownUrl(text.trim()).replace(/[?#].*$/s, '')}" is not a URL; use postgres://USER@HOST:5432/DATABASE, with the password's reserved characters (such as # ? @ / :) percent-encoded`,
    );
  }
  const schema = url.searchParams.get('schema') ?? DEFAULT_SCHEMA;
  if (!SCHEMA.test(schema)) {
    throw new StateLockError(
      `${name}: schema "${schema}" is not allowed; use lower-case letters, digits and _ (at most 63), starting with a letter or _`,
    );
  }
  const secrets = urlPasswords(url);
  url.searchParams.delete('schema');
  const printable = new URL(url.href);
  for (const name of SECRET_PARAMETERS) printable.searchParams.delete(name);
  const shown = shownUrl(printable.href);
  return {
    connectionString: url.href,
    schema,
    shown: `${shown}${printable.search ? '&' : '?'}schema=${schema}`,
    secrets,
  };
}

/** `"name"`: the schema name is checked (SCHEMA), the quotes are for a name that is a keyword. */
export function quoted(schema: string): string {
  return `"${schema}"`;
}
