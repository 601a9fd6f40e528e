import { describe, expect, it } from 'vitest';
import { parseListen } from '../../src/daemon/health.js';

describe('parseListen', () => {
  it.each([
    ['0.0.0.0:9090', { host: '0.0.0.0', port: 9090 }],
    ['127.0.0.1:0', { host: '127.0.0.1', port: 0 }],
    ['localhost:8080', { host: 'localhost', port: 8080 }],
    [':9090', { host: '0.0.0.0', port: 9090 }],
    ['[::1]:9090', { host: '::1', port: 9090 }],
    ['[::]:9090', { host: '::', port: 9090 }],
  ])('reads %s', (text, expected) => {
    expect(parseListen(text)).toEqual(expected);
  });

  it.each(['9090', 'host', 'host:', 'host:99999', '::1:9090', 'a:b:9090', 'host:port'])(
    'refuses %s',
    (text) => {
      expect(parseListen(text)).toBeUndefined();
    },
  );
});
