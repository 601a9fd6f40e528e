// Deterministic accounts for the benchmark: the same index always yields the same website, so the
// simulator's seed, the manifest and the state file describe one converged account.
import { createHash } from 'node:crypto';
import { emptyState, recordApplied, saveState } from '../../dist/state/index.js';

export const API_KEY = 'bench-key';
/** The fingerprints' key the CLI derives from the API key (src/cli/connect.ts does the same). */
export const SECRET = createHash('sha256').update(`websites-sync\0${API_KEY}`).digest('base64url');
/** Interpolated into the manifest as ${BENCH_SITE_PASSWORD}, as a real deployment would. */
export const SITE_PASSWORD = 'bench-secret-1';
export const PASSWORD_ENV = { BENCH_SITE_PASSWORD: SITE_PASSWORD };

/**
 * Website `i` (0-based; the simulator gives it id i + 1). A mix of settings, so that every comparison
 * path runs: readable fields, lists, a password (write-only) and exclude_params (never returned).
 */
export function website(i) {
  const site = { domain: `site${String(i).padStart(6, '0')}.example.com` };
  if (i % 50 === 0) site.privacy = 2;
  else if (i % 5 === 0) site.privacy = 0;
  if (i % 3 === 0) site.email = true;
  if (i % 11 === 0) site.exclude_bots = false;
  if (i % 10 === 0) site.exclude_params = ['utm_source', 'fbclid'];
  if (i % 7 === 0) site.exclude_ips = [`203.0.113.${i % 250}`, '2001:db8::1'];
  return site;
}

/** The `count` websites of an account, with `flip(i)` true where e-mail reports are toggled. */
export function websites(count, flip = () => false) {
  return Array.from({ length: count }, (_, i) => {
    const site = website(i);
    if (flip(i)) site.email = !site.email;
    return site;
  });
}

/** What the simulator stores at start (the password in clear, as the web UI would have set it). */
export function seedOf(sites) {
  return sites.map((site) => (site.privacy === 2 ? { ...site, password: SITE_PASSWORD } : site));
}

const PRIVACY = ['public', 'private', 'password'];

/** The manifest text: written by hand, not by a YAML library, so generating it costs nothing. */
export function manifestOf(sites) {
  const lines = ['version: 1', 'prune: false', 'defaults:', '  privacy: private', 'websites:'];
  for (const site of sites) {
    lines.push(`  - domain: ${site.domain}`);
    if (site.privacy !== undefined && site.privacy !== 1) lines.push(`    privacy: ${PRIVACY[site.privacy]}`);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax, read from the environment.
    if (site.privacy === 2) lines.push('    password: ${BENCH_SITE_PASSWORD}');
    if (site.email !== undefined) lines.push(`    email: ${site.email}`);
    if (site.exclude_bots !== undefined) lines.push(`    exclude_bots: ${site.exclude_bots}`);
    if (site.exclude_params) lines.push(`    exclude_params: [${site.exclude_params.join(', ')}]`);
    if (site.exclude_ips)
      lines.push(`    exclude_ips: [${site.exclude_ips.map((ip) => `"${ip}"`).join(', ')}]`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The state file a previous apply of these websites would have left: fingerprints of the write-only
 * values (exclude_params, the password). Without it every website's exclude_params would be resent
 * once, and the plan would not be the converged one the scenario measures.
 */
export async function writeConvergedState(path, baseUrl, sites) {
  const state = emptyState(baseUrl, SECRET);
  sites.forEach((site, i) => {
    const ref = { id: i + 1, domain: site.domain };
    recordApplied(state, ref, 'exclude_params', [...(site.exclude_params ?? [])].sort());
    if (site.privacy === 2) recordApplied(state, ref, 'password', SITE_PASSWORD);
  });
  await saveState(path, state);
}
