import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

// Issue 12 §7: the example's memory figures come from the benchmark, and a slow first start is not
// killed by the liveness probe.
const root = new URL('../../', import.meta.url);

interface Container {
  resources: { requests: { memory: string }; limits: { memory: string } };
  startupProbe?: { httpGet: { path: string }; periodSeconds: number; failureThreshold: number };
  livenessProbe?: unknown;
}

async function container(): Promise<Container> {
  const text = await readFile(new URL('examples/kubernetes/deployment.yaml', root), 'utf8');
  const deployment = parseAllDocuments(text)
    .map((d) => d.toJS())
    .find((d) => d?.kind === 'Deployment');
  return deployment.spec.template.spec.containers[0] as Container;
}

function mebibytes(quantity: string): number {
  const match = /^(\d+)(Mi|Gi)$/.exec(quantity);
  if (!match) throw new Error(`unexpected quantity ${quantity}`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
}

/** A figure in MB from the committed benchmark results, by the pattern that precedes it. */
async function measured(pattern: RegExp): Promise<number> {
  const text = await readFile(new URL('docs/benchmarks.md', root), 'utf8');
  const match = pattern.exec(text);
  if (!match) throw new Error(`docs/benchmarks.md has no ${pattern}`);
  return Number(match[1]);
}

describe('the Kubernetes example', () => {
  it('requests at least what the daemon uses and allows the largest measured peak', async () => {
    const { resources } = await container();
    const daemonMb = await measured(/→ (\d+) MB after 5,000/);
    const peakMb = await measured(/Peak RSS of that 100,000-website plan .*?\| (\d+) MB/);
    const toMb = (mib: number) => (mib * 1024 * 1024) / 1e6;
    expect(toMb(mebibytes(resources.requests.memory))).toBeGreaterThanOrEqual(daemonMb);
    expect(toMb(mebibytes(resources.limits.memory))).toBeGreaterThan(peakMb);
  });

  it('gives the first start time before liveness counts', async () => {
    const { startupProbe, livenessProbe } = await container();
    expect(livenessProbe).toBeDefined();
    expect(startupProbe?.httpGet.path).toBe('/healthz');
    const seconds = (startupProbe?.periodSeconds ?? 0) * (startupProbe?.failureThreshold ?? 0);
    expect(seconds).toBeGreaterThanOrEqual(20 * 60);
  });

  it('never calls losing the state safe: it holds protections and pending deletes', async () => {
    const text = await readFile(new URL('examples/kubernetes/pvc.yaml', root), 'utf8');
    expect(text).not.toMatch(/Losing it is\s+safe/);
    expect(text).toContain('Losing it is NOT harmless');
    expect(text).toMatch(/protect/);
  });
});

describe('the two-replica variant (examples/kubernetes-replicas)', () => {
  const read = async (name: string) =>
    parseAllDocuments(await readFile(new URL(`examples/kubernetes-replicas/${name}`, root), 'utf8')).map(
      (d) => d.toJS(),
    );

  it('runs two replicas with a PodDisruptionBudget that keeps one, rolling (a standby is ready)', async () => {
    const [deployment] = await read('deployment.yaml');
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.spec.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: 1, maxUnavailable: 0 },
    });
    const [pdb] = await read('pdb.yaml');
    expect(pdb.kind).toBe('PodDisruptionBudget');
    expect(pdb.spec.minAvailable).toBe(1);
    const base = parseAllDocuments(
      await readFile(new URL('examples/kubernetes/deployment.yaml', root), 'utf8'),
    )
      .map((d) => d.toJS())
      .find((d) => d?.kind === 'Deployment');
    expect(pdb.spec.selector.matchLabels).toEqual(base.spec.selector.matchLabels);
  });

  it('reads the PostgreSQL URL from the Secret through a file, never from the pod spec, and keeps no state volume', async () => {
    const [deployment] = await read('deployment.yaml');
    const spec = deployment.spec.template.spec;
    const env = spec.containers[0].env as Array<{ name: string; value?: string; $patch?: string }>;
    const urlFile = env.find((e) => e.name === 'WEBSITES_SYNC_STATE_URL_FILE')?.value;
    expect(urlFile).toBe('/var/run/secrets/websites-sync/state-url');
    expect(env.find((e) => e.name === 'WEBSITES_SYNC_STATE_FILE')?.$patch).toBe('delete');
    expect(JSON.stringify(deployment)).not.toContain('postgres://');
    const secretVolume = spec.volumes.find((v: { name: string }) => v.name === 'api-key');
    expect(secretVolume.secret.items).toContainEqual({ key: 'state-url', path: 'state-url' });
    const [secret] = await read('secret.yaml');
    expect(secret.stringData['state-url']).toMatch(/^postgres:\/\//);
    const kustomization = await readFile(
      new URL('examples/kubernetes-replicas/kustomization.yaml', root),
      'utf8',
    );
    expect(kustomization).toContain('- ../kubernetes');
    expect(kustomization).toMatch(/\$patch: delete\s+apiVersion: v1\s+kind: PersistentVolumeClaim/);
  });
});
