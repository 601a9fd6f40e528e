// The rows of issue 14 that measure one feature each (a rate budget, targeted re-reads after a
// manifest edit, durable progress during an apply, adoption). A row is measured only once its feature
// is in the build; until then it says so, rather than printing numbers that would measure nothing.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { cliCommand } from './processes.mjs';
import { INVALID_MANIFEST_TARGET_RATIO, invalidManifestScenario } from './scenarios-invalid.mjs';
import { killScenario } from './scenarios-kill.mjs';
import { adoptScenario, manifestEditScenario, neighbourScenario } from './scenarios-rate.mjs';
import { stateBackendScenario } from './scenarios-state.mjs';

/** Whether `websites-sync --help` documents an option (the feature's switch is in the build). */
async function hasOption(option) {
  const { stdout } = await promisify(execFile)(process.execPath, cliCommand(['--help']));
  return stdout.includes(option);
}

export const FEATURE_ROWS = [
  {
    id: 'manifest-edit',
    name: 'Manifest edit on a 100,000-website account under 60 requests/min (time-scaled): edit to applied change',
    target: 'applied within 60 s of the edit (scaled)',
    // No option to look for: the daemon re-reads only what an edit touches (since issue 14 §2).
    present: async () => true,
    measure: (dir) => manifestEditScenario(dir),
  },
  {
    id: 'neighbour',
    name: "Daemon's share of the key during a resync, with a neighbour client on the same key",
    target: '≤ the budget (50% of the limit); the neighbour refused 0 times',
    present: () => hasOption('--rate-budget'),
    measure: (dir) => neighbourScenario(dir),
  },
  {
    id: 'kill-rerun',
    name: 'Kill during a long apply, then rerun: requests resent',
    target: 'at most the operations of the last second resent',
    // No option to look for; on main since the state is saved during each apply phase.
    present: async () => true,
    measure: async (dir) => {
      const r = await killScenario(dir);
      return {
        ok: r.ok,
        text: `killed after ${r.created} of 600 creates (${r.lastSecond} in its last second); the rerun resent ${r.resent} write-only updates, created the ${r.rerunCreates} missing (${r.expectedCreates}), exit ${r.code}`,
      };
    },
  },
  {
    id: 'adopt',
    name: 'Adoption of an existing account of N websites with --adopt',
    target: "⌈N/100⌉ list requests and one read of the account's plan",
    present: () => hasOption('--adopt'),
    measure: (dir) => adoptScenario(dir),
  },
  {
    id: 'state-backends',
    name: "Converged runs of 10,000 websites, state in a file and in PostgreSQL: each run's time and the state's share of it",
    target: "the state a small share of a run's time with either backend",
    present: () => hasOption('--state-url-file'),
    measure: (dir) => stateBackendScenario(dir),
  },
  {
    id: 'invalid-manifest',
    name: '`validate` of a 10,000-website manifest with one unknown key (the full path, with positions)',
    target: `peak RSS ≤ ${INVALID_MANIFEST_TARGET_RATIO}× the same manifest's without the error (before the piece-by-piece reading: 1.6-2.0×), the error located at its line`,
    present: async () => true,
    measure: (dir) => invalidManifestScenario(dir),
  },
];

/**
 * Each feature row: "not measured: feature missing" while its feature is not in the build; a feature
 * that is there but whose scenario the benchmark does not drive yet says that instead.
 */
export async function featureRows(dir, only = undefined) {
  const rows = [];
  for (const row of FEATURE_ROWS.filter((r) => only === undefined || r.id === only)) {
    const base = { id: row.id, name: row.name, target: row.target };
    if (!(await row.present())) {
      rows.push({ ...base, status: 'not measured: feature missing' });
    } else if (!row.measure) {
      rows.push({ ...base, status: 'not measured: feature present, scenario not written yet' });
    } else {
      const { ok, text } = await row.measure(dir);
      rows.push({ ...base, ok, status: `${ok ? 'met' : 'missed'}: ${text}` });
    }
  }
  return rows;
}
