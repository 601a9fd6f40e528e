// The CPU floor of a listing: plain undici and JSON.parse of the same pages the tool reads, nothing
// else (no checks, no plan). Run as a process of its own so its CPU is measured alone; prints
// {"cpuMs": …} for the work after its own start-up.
import { request } from 'undici';
import { setRunOptions } from '../dist/cli/v8-options.js';

const [url, key, pagesText] = process.argv.slice(2);
const pages = Number(pagesText);
// As the CLI's service client runs it (src/cli/v8-options.ts).
setRunOptions(false); // the simulator: plain http on this machine
const before = process.cpuUsage();
let next = 1;
async function worker() {
  while (next <= pages) {
    const page = next++;
    const answer = await request(`${url}/api/v1/websites?page=${page}&per_page=100`, {
      headers: { authorization: `Bearer ${key}`, accept: 'application/json' },
    });
    JSON.parse(await answer.body.text());
  }
}
await Promise.all(Array.from({ length: 8 }, worker));
const used = process.cpuUsage(before);
process.stdout.write(`${JSON.stringify({ cpuMs: (used.user + used.system) / 1000 })}\n`);
