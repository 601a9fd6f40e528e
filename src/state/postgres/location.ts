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
  /** The password, for the Redactor (empty when there is none in the URL). */
  password: string;
  /** As written in the URL (percent-encoded), for the Redactor too. */
  passwordAsWritten: string;
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
    throw new StateLockError(
      `${name}: "${shownUrl(text)}" is not a URL; use postgres://USER@HOST:5432/DATABASE`,
    );
  }
  const schema = url.searchParams.get('schema') ?? DEFAULT_SCHEMA;
  if (!SCHEMA.test(schema)) {
    throw new StateLockError(
      `${name}: schema "${schema}" is not allowed; use lower-case letters, digits and _ (at most 63), starting with a letter or _`,
    );
  }
  url.searchParams.delete('schema');
  const password = decodeURIComponent(url.password);
  const shown = shownUrl(url.href);
  return {
    connectionString: url.href,
    schema,
    shown: `${shown}${url.search ? '&' : '?'}schema=${schema}`,
    password,
    passwordAsWritten: url.password,
  };
}

/** `"name"`: the schema name is checked (SCHEMA), the quotes are for a name that is a keyword. */
export function quoted(schema: string): string {
  return `"${schema}"`;
}
