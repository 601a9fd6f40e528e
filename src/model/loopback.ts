import { isIP } from 'node:net';

/**
 * This machine: `localhost` (and `*.localhost`), 127.0.0.0/8, ::1. Plain http is allowed to it, and
 * no proxy is used for it.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}
