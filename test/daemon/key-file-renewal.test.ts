import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyNotRenewedError, ServiceInUse } from '../../src/daemon/key-file.js';
import type { KeyRefusal, WebsiteService } from '../../src/service/index.js';

// ServiceInUse alone, with clients that only say whether their key was refused.

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

function fakeService(keyRefusal?: KeyRefusal): WebsiteService {
  return { keyRefusal } as WebsiteService;
}

async function setUp(refusal: KeyRefusal | undefined) {
  dir = await mkdtemp(join(tmpdir(), 'websites-sync-key-'));
  const path = join(dir, 'api-key');
  await writeFile(path, 'first-key\n');
  const reconnected: string[] = [];
  const inUse = new ServiceInUse(
    { service: fakeService(refusal), secret: 'first' },
    {
      path,
      source: 'WEBSITES_SYNC_API_KEY_FILE',
      apiKey: 'first-key',
      reconnect: (apiKey) => {
        reconnected.push(apiKey);
        return { service: fakeService(), secret: `secret-${reconnected.length}` };
      },
    },
    pino({ level: 'silent' }),
  );
  return { path, inUse, reconnected };
}

describe('ServiceInUse: the key file read again before a run', () => {
  it('keeps the client while the key works and the file holds the same key', async () => {
    const { path, inUse, reconnected } = await setUp(undefined);
    expect(await inUse.beforeRun()).toBe(false);
    await writeFile(path, 'first-key\n\n');
    expect(await inUse.beforeRun()).toBe(false);
    expect(reconnected).toEqual([]);
    expect(inUse.secret).toBe('first');
  });

  it('does not send a key refused at the first request again, and takes the one written after', async () => {
    const { path, inUse, reconnected } = await setUp('refused');
    const refused = inUse.beforeRun();
    await expect(refused).rejects.toBeInstanceOf(KeyNotRenewedError);
    await expect(refused).rejects.toMatchObject({
      revoked: false,
      message: `the service refused the API key, and ${path} (WEBSITES_SYNC_API_KEY_FILE) still holds that key: nothing was sent with it again. Write the new key into the file: the daemon reads it again before every run, no restart needed.`,
    });
    await writeFile(path, 'right-key\n');
    expect(await inUse.beforeRun()).toBe(true);
    expect(reconnected).toEqual(['right-key']);
    expect(inUse.secret).toBe('secret-1');
    // The new client's key works: the file is not read again until it changes.
    expect(await inUse.beforeRun()).toBe(false);
  });

  it('takes a new key before any refusal, as soon as the file changes', async () => {
    const { path, inUse, reconnected } = await setUp(undefined);
    await writeFile(path, 'second-key\n');
    expect(await inUse.beforeRun()).toBe(true);
    expect(reconnected).toEqual(['second-key']);
  });
});
