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
