import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectService, ServiceError } from '../../src/service/index.js';

// The service's own words in an error answer (`message`, Laravel's `errors`) reach the report and the
// log as they are. A hostile or broken service (or a proxy) can put megabytes there, or line breaks,
// or the run's secrets: each is shown masked, on one line and of bounded length.
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function answering(status: number, body: unknown) {
  const server = createServer((_req, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  cleanups.push(() => new Promise((done) => server.close(() => done())));
  const { port } = server.address() as AddressInfo;
  const client = connectService({
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey: 'the-api-key',
    version: 'test',
    timeoutMs: 2_000,
    concurrency: 1,
    redact: (text) => text.replaceAll('the-api-key', '[redacted]'),
  });
  cleanups.push(() => client.close());
  return client.service;
}

const MEGABYTE = 'x'.repeat(1024 * 1024);

describe('the words of an error answer', () => {
  it('a message of a megabyte, over several lines: one line, cut, the key masked', async () => {
    const service = await answering(418, { message: `Failed for the-api-key\r\n${MEGABYTE}\nsecond line` });
    const error = (await service.listWebsites().catch((e: unknown) => e)) as ServiceError;
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.message).toMatch(/^GET \/api\/v1\/websites: 418 Failed for \[redacted\] x+\.\.\.$/);
    expect(error.message.length).toBeLessThan(400);
    expect(error.details).toBe(error.message);
  });

  it('validation errors: a bounded number of fields and messages, each one line and cut', async () => {
    const errors: Record<string, string[]> = {};
    // About 4 MB, within the size an answer may have.
    const long = `bad\n${'y'.repeat(400)}`;
    for (let i = 0; i < 200; i++) errors[`field${i}`] = Array.from({ length: 50 }, () => long);
    errors.domain = ['The domain has already been taken.'];
    const service = await answering(422, {
      message: 'The given data was invalid.',
      errors: { domain: errors.domain, ...errors },
    });
    const error = (await service.createWebsite('a.example.com', {}).catch((e: unknown) => e)) as ServiceError;
    expect(error.fieldErrors.domain).toEqual(['The domain has already been taken.']);
    expect(Object.keys(error.fieldErrors).length).toBeLessThanOrEqual(20);
    for (const messages of Object.values(error.fieldErrors)) {
      expect(messages.length).toBeLessThanOrEqual(5);
      for (const m of messages) expect(m).toMatch(/^[^\n]{1,300}$/);
    }
    expect(error.details.length).toBeLessThan(40_000);
    expect(JSON.stringify(error.fieldErrors)).not.toContain('\\n');
  });
});
