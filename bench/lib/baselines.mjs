// The two ways of keeping an account in sync that websites-sync is compared with, written as plainly as
// their authors would, against the same simulator:
// - a Terraform-style refresh: one GET per declared website (the provider reads each resource by the
//   id in its state), 10 at a time, then a PATCH for each website that differs;
// - a naive script: list the account (to find the ids), then PATCH every declared website, every run.
// Each runs in a process of its own (bench/baseline.mjs) so that its CPU and wall time are its own.
import { API_KEY } from './fixtures.mjs';

export const PARALLELISM = 10;
const HEADERS = { authorization: `Bearer ${API_KEY}`, accept: 'application/json' };

/** Runs `work(item)` over `items`, `limit` at a time. */
async function pool(items, limit, work) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

async function call(url, init = {}) {
  const response = await fetch(url, { ...init, headers: { ...HEADERS, ...init.headers } });
  const body = await response.text();
  if (!response.ok)
    throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${body.slice(0, 200)}`);
  return JSON.parse(body);
}

/** The form body of a website's declared settings (what both scripts send). */
export function formOf(site) {
  const form = new URLSearchParams();
  form.set('privacy', String(site.privacy ?? 1));
  if (site.password !== undefined) form.set('password', site.password);
  form.set('email', site.email ? '1' : '0');
  form.set('exclude_bots', site.exclude_bots === false ? '0' : '1');
  form.set('exclude_params', (site.exclude_params ?? []).join('\n'));
  form.set('exclude_ips', (site.exclude_ips ?? []).join('\n'));
  return form;
}

const patch = (base, id, site) =>
  call(`${base}/api/v1/websites/${id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: formOf(site).toString(),
  });

const flag = (value) => value === true || value === 1 || value === '1';
const lines = (value) => (value ? String(value).split('\n').filter(Boolean).sort().join('\n') : '');

/** Whether the record read back differs from the declared website in a field the service returns. */
function differs(record, site) {
  return (
    Number(record.privacy) !== (site.privacy ?? 1) ||
    flag(record.email) !== Boolean(site.email) ||
    flag(record.exclude_bots) !== (site.exclude_bots !== false) ||
    lines(record.exclude_ips) !== [...(site.exclude_ips ?? [])].sort().join('\n')
  );
}

/** Terraform-style: refresh every resource by id (ids from its state: website i has id i + 1). */
export async function terraformStyle(base, sites) {
  const stale = [];
  await pool(
    sites.map((site, i) => ({ site, id: i + 1 })),
    PARALLELISM,
    async ({ site, id }) => {
      const { data } = await call(`${base}/api/v1/websites/${id}`);
      if (differs(data, site)) stale.push({ site, id });
    },
  );
  await pool(stale, PARALLELISM, ({ site, id }) => patch(base, id, site));
  return { changed: stale.length };
}

/** The naive script: list every page (one after the other), then PATCH every declared website. */
export async function naiveScript(base, sites) {
  const ids = new Map();
  for (let page = 1, last = 1; page <= last; page++) {
    const body = await call(`${base}/api/v1/websites?per_page=100&page=${page}`);
    for (const record of body.data) ids.set(record.domain, record.id);
    last = body.meta?.last_page ?? body.last_page ?? 1;
  }
  await pool(sites, PARALLELISM, (site) => patch(base, ids.get(site.domain), site));
  return { changed: sites.length };
}
