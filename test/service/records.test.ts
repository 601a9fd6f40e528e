import { describe, expect, it } from 'vitest';
import { parsePage } from '../../src/service/paging.js';
import { encodeWrite, parseRecord } from '../../src/service/records.js';

describe('parseRecord', () => {
  it('reads the real service record: password as a boolean, exclude_params absent', () => {
    const record = parseRecord({
      id: 4,
      domain: 'example.com',
      privacy: 2,
      email: 1,
      password: true,
      exclude_bots: 0,
      exclude_ips: '203.0.113.7\r\n\n 192.0.2.1 ',
      favorite: 0,
    });
    expect(record).toEqual({
      id: 4,
      domain: 'example.com',
      privacy: 2,
      email: true,
      hasPassword: true,
      exclude_bots: false,
      exclude_ips: ['192.0.2.1', '203.0.113.7'],
    });
    expect(record && 'exclude_params' in record).toBe(false);
  });

  it('keeps an id as the service showed it: a number only when it is written exactly as one', () => {
    const id = (value: unknown) => parseRecord({ id: value, domain: 'a.example.com' })?.id;
    expect([id(7), id('7'), id('w-7'), id('07'), id('7.0'), id(' 7'), id('12345678901234567890')]).toEqual([
      7,
      7,
      'w-7',
      '07',
      '7.0',
      ' 7',
      '12345678901234567890',
    ]);
  });

  it('refuses an id that a URL path would resolve away (. and ..), so no request goes elsewhere', () => {
    expect(parseRecord({ id: '..', domain: 'a.example.com' })).toBeUndefined();
    expect(parseRecord({ id: '.', domain: 'a.example.com' })).toBeUndefined();
    expect(parseRecord({ id: '...', domain: 'a.example.com' })?.id).toBe('...');
  });

  it('reads a null list as empty', () => {
    expect(parseRecord({ id: 1, domain: 'a.example.com', exclude_ips: null })?.exclude_ips).toEqual([]);
  });
});

describe('encodeWrite', () => {
  it('sends booleans as 0/1 and lists joined by newlines, an empty list as an empty string', () => {
    const form = encodeWrite(
      { email: true, exclude_bots: false, exclude_params: ['a', 'b'], exclude_ips: [] },
      'x.com',
    );
    expect(form.toString()).toBe('domain=x.com&email=1&exclude_bots=0&exclude_params=a%0Ab&exclude_ips=');
  });
});

describe('parsePage', () => {
  const data = [{ id: 1, domain: 'a.example.com' }];

  it('reads the resource-collection shape', () => {
    const page = parsePage(
      {
        data,
        links: { next: 'https://s/api/v1/websites?page=2' },
        meta: { current_page: 1, last_page: 3, total: 250 },
      },
      1,
    );
    expect(page).toMatchObject({ page: 1, lastPage: 3, total: 250, hasNext: true });
  });

  it('reads the plain paginator shape', () => {
    const page = parsePage({ data, current_page: 3, last_page: 3, total: 250, next_page_url: null }, 3);
    expect(page).toMatchObject({ page: 3, lastPage: 3, total: 250, hasNext: false });
  });

  it('refuses an answer without a data list', () => {
    expect(() => parsePage({ message: 'Server Error' }, 1)).toThrow(
      'GET /api/v1/websites: unexpected answer 200 without a "data" list: {"message":"Server Error"}',
    );
  });
});
