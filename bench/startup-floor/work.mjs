// What every one-shot run of the CLI uses, one call each: node:crypto (the state's key fingerprint),
// zod (the manifest and the service's answers), pino (the log) and undici (the service, through an Agent
// as src/service/http.ts builds it), then the two reads of a plan: the first page of the list and the
// account's plan limit, side by side.
import { createHmac } from 'node:crypto';
import pino from 'pino';
import { Agent } from 'undici';
import { z } from 'zod';
import { setRunOptions } from '../../src/cli/v8-options.ts';

export { restoreDefaults } from '../../src/cli/v8-options.ts';

const Page = z.object({ data: z.array(z.object({ id: z.number(), domain: z.string() })) });

export async function dryRun(baseUrl, apiKey) {
  Error.stackTraceLimit = 0; // as the CLI records none at its default level (src/cli/cli.ts)
  const log = pino({ level: 'warn' }, process.stderr);
  const fingerprint = createHmac('sha256', apiKey).update('websites-sync').digest('base64url');
  setRunOptions(false); // as a run of the CLI does before it connects (the simulator: no TLS)
  const agent = new Agent({ allowH2: false });
  const headers = { authorization: `Bearer ${apiKey}`, accept: 'application/json' };
  const read = async (path) => {
    const answer = await agent.request({ origin: baseUrl, path, method: 'GET', headers });
    return answer.body.json();
  };
  const [page, account] = await Promise.all([
    read('/api/v1/websites?page=1&per_page=100'),
    read('/api/v1/account'),
  ]);
  const websites = Page.parse(page).data.length;
  log.info({ websites }, 'read');
  process.stdout.write(
    `${JSON.stringify({ websites, account: account !== null, fingerprint: fingerprint.length })}\n`,
  );
  await agent.close();
}
