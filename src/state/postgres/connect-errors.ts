import { StateLockError } from '../lock-error.js';
import type { PostgresLocation } from './location.js';

// What went wrong reaching the server, in the operator's terms: which state (its URL without user and
// password) and what to do. Nothing was changed when any of these is thrown.

/** Bounded: an unreachable server is an error within this time, not a hang. */
export const CONNECT_TIMEOUT_MS = 10_000;

/** The files the URL may name, which node-postgres reads as it builds the client. */
const FILE_PARAMETERS = ['sslrootcert', 'sslcert', 'sslkey'];

/** The client could not be built from the URL: a file it names (node-postgres reads them then), a parameter. */
export function explainClientError(error: unknown, location: PostgresLocation): Error {
  const { syscall, path, message } = error as { syscall?: string; path?: string; message?: string };
  const text = message ?? String(error);
  if (syscall === 'open' && path !== undefined) {
    const named = new URL(location.connectionString).searchParams;
    const option = FILE_PARAMETERS.find((name) => named.get(name) === path);
    return new StateLockError(
      `PostgreSQL at ${location.shown}: cannot read ${path}${option ? `, the URL's ${option}` : ''} (${text.replace(/, open .*$/s, '')}); nothing was changed`,
    );
  }
  return new StateLockError(
    `PostgreSQL at ${location.shown}: the URL cannot be used (${text}); nothing was changed`,
  );
}

/** What went wrong, in the operator's terms; the URL is shown without its password. */
export function explainConnectError(error: unknown, location: PostgresLocation, connecting = false): Error {
  const { code, message } = error as { code?: string; message?: string };
  const where = location.shown;
  const text = message ?? String(error);
  switch (code) {
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
      return new StateLockError(
        `cannot reach PostgreSQL at ${where} (${code}); check the host and port; nothing was changed`,
      );
    case '28P01':
    case '28000':
      return new StateLockError(
        `PostgreSQL at ${where} refused the credentials (${text}); check the user and password; nothing was changed`,
      );
    case '3D000':
      return new StateLockError(
        `PostgreSQL at ${where}: ${text}; create the database first; nothing was changed`,
      );
    // A replica, or a read-only role: reads and advisory locks work there, the first write is refused.
    case '25006':
      return new StateLockError(
        `PostgreSQL at ${where} is read-only (${text}): a replica, or a role whose transactions are read-only (default_transaction_read_only); point --state at the primary, or use a role that may write; nothing was changed`,
      );
    case '42501':
      return new StateLockError(
        `PostgreSQL at ${where}: missing privileges (${text}); the user needs CREATE on the database (or the schema created for it) and to own the tool's tables; nothing was changed`,
      );
    default:
      if (connecting) return explainConnecting(code, text, where);
      return new StateLockError(`PostgreSQL at ${where}: ${text}`);
  }
}

/** The TLS handshake's own failures (Node's certificate checks, OpenSSL's), and a server without TLS. */
const TLS_FAILURE = /^(ERR_TLS_|ERR_SSL_|ERR_OSSL_)|CERT|^UNABLE_TO_|SELF_SIGNED/;

function explainConnecting(code: string | undefined, text: string, where: string): Error {
  // Only while connecting is a timeout the connection's own (a statement's is explained apart).
  if (/timeout/i.test(text)) {
    return new StateLockError(
      `cannot reach PostgreSQL at ${where} (no answer within ${CONNECT_TIMEOUT_MS / 1000}s); nothing was changed`,
    );
  }
  // node-postgres's words when the server answers the TLS request with no (no `code`).
  if (/does not support SSL/i.test(text)) {
    return new StateLockError(
      `PostgreSQL at ${where} takes no TLS connection (${text}), which the URL's sslmode asks for; enable TLS on the server, or point at an address that offers it; nothing was changed`,
    );
  }
  if (code !== undefined && TLS_FAILURE.test(code)) {
    return new StateLockError(
      `PostgreSQL at ${where}: TLS failed (${text}; ${code}); check sslmode, sslrootcert (the certificate of the CA that signed the server's), and that the URL's host is one the server's certificate names; nothing was changed`,
    );
  }
  // Something else listens there (another service, a proxy) and hangs up.
  return new StateLockError(
    `PostgreSQL at ${where}: ${text}; check that the host and port are those of a PostgreSQL server; nothing was changed`,
  );
}
