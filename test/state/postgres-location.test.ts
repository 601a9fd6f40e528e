import { describe, expect, it } from 'vitest';
import { shownLocation, stateSecrets } from '../../src/state/index.js';
import { parsePostgresUrl } from '../../src/state/postgres/location.js';

// `--state postgres://…`: our `schema` parameter apart from the connection, the URL shown without its
// credentials, the password (in both spellings) known to the Redactor.

describe('a PostgreSQL state URL', () => {
  it('takes its schema from ?schema=, leaves every other parameter to PostgreSQL, and never shows the password', () => {
    const url = 'postgres://sync:p%40ss@db.example.com:5432/ops?sslmode=require&schema=team_a';
    const location = parsePostgresUrl(url);
    expect(location.schema).toBe('team_a');
    expect(location.connectionString).toBe('postgres://sync:p%40ss@db.example.com:5432/ops?sslmode=require');
    expect(location.shown).toBe('postgres://db.example.com:5432/ops?sslmode=require&schema=team_a');
    expect(shownLocation(url)).toBe(location.shown);
    expect(stateSecrets(url).sort()).toEqual(['p%40ss', 'p@ss']);
    expect(parsePostgresUrl('postgresql://db/ops').schema).toBe('websites_sync');
  });

  it('a password given as a `password` parameter (node-postgres takes it) is a secret too, never shown', () => {
    const url = 'postgres://admin@127.0.0.1:55432/postgres?password=S3cr%23t%2Fpw&sslmode=disable&schema=rv1';
    expect(shownLocation(url)).toBe('postgres://127.0.0.1:55432/postgres?sslmode=disable&schema=rv1');
    expect(stateSecrets(url).sort()).toEqual(['S3cr#t/pw', 'S3cr%23t%2Fpw']);
  });

  it('a URL that does not parse: its password is still a secret, and its refusal shows no query', () => {
    const url = 'postgres://u:pw-1@host:99999/db?password=s3cret&schema=x';
    expect(stateSecrets(url).sort()).toEqual(['pw-1', 's3cret']);
    expect(() => parsePostgresUrl(url)).toThrow(/"postgres:\/\/\*\*\*@host:99999\/db" is not a URL/);
  });

  it.each([
    'postgres://ws:Tr0ub4dor#3xyz@127.0.0.1:55432/ops',
    'postgres://ws:Tr0ub?4dor@127.0.0.1:55432/ops',
    'postgres://ws:Tr0/ub4dor@127.0.0.1:55432/ops',
  ])(
    'a password with a reserved character, not percent-encoded (%s): not a URL, no part of it shown, and a secret',
    (url) => {
      const password = url.slice('postgres://ws:'.length, url.lastIndexOf('@'));
      expect(stateSecrets(url)).toContain(password);
      let message = '';
      try {
        parsePostgresUrl(url);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain('"postgres://***@127.0.0.1:55432/ops" is not a URL');
      expect(message).not.toContain('Tr0');
    },
  );

  it('a password that is not valid percent-encoding (`50%off`) is a secret as written, not an internal error', () => {
    expect(stateSecrets('postgres://u:50%off@db/ops')).toEqual(['50%off']);
    expect(shownLocation('postgres://u:50%off@db/ops')).toBe('postgres://db/ops?schema=websites_sync');
  });

  it.each([
    ['Team', 'upper case'],
    ['a-b', 'a dash'],
    ['x"; DROP SCHEMA public; --', 'quotes'],
    ['1abc', 'a leading digit'],
  ])('refuses a schema name with %s (%s), naming what is allowed', (schema) => {
    expect(() => parsePostgresUrl(`postgres://db/ops?schema=${encodeURIComponent(schema)}`)).toThrow(
      /schema ".*" is not allowed; use lower-case letters, digits and _/,
    );
  });

  it('a path is not a URL: nothing secret in it, shown as it is', () => {
    expect(stateSecrets('./state.json')).toEqual([]);
    expect(shownLocation('./state.json')).toBe('./state.json');
  });
});
