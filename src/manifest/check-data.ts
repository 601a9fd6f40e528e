// The checks of a manifest's data once YAML has read it: the schema's, the environment's and those
// across fields, each located; a password written with YAML syntax is reported as such, never quoted.
import type { Problem } from '../model/index.js';
import type { InterpolationFailure } from './interpolate.js';
import { firstIssues, issuesToFindings } from './issues.js';
import { type Finding, formatPath, type Locator, type Path } from './locate.js';
import { type PasswordSpan, passwordMessage, startsWithIndicator } from './password-syntax.js';
import { resolveManifest } from './resolve.js';
import { manifestSchema } from './schema.js';

/** A problem inside a password's value: what YAML read there, at the value, never its text. */
export function passwordProblem(locator: Locator, span: PasswordSpan): Problem {
  const message = passwordMessage(locator.text, span);
  return { severity: 'error', ...locator.at(span.start), field: span.field, message };
}

/** Later checks must not pile up on a value whose `${…}` could not be resolved. */
function dependsOnFailure(finding: { path: Path }, failed: Set<string>): boolean {
  const field = formatPath(finding.path);
  return [...failed].some((f) => field === f || field.startsWith(`${f}.`) || field.startsWith(`${f}[`));
}

/**
 * Schema, env and cross-field findings of a mapping root, without the ones a failed `${…}` or a
 * password YAML could not read (`reported`) caused. A password written with YAML syntax (`&x`, `!x`,
 * `[x]`) is reported as such, at its value.
 */
export function checkData(
  data: Record<string, unknown>,
  failures: InterpolationFailure[],
  context: Checking,
) {
  const { locator, spans, reported } = context;
  const failed = new Set([...failures.map((failure) => formatPath(failure.path)), ...reported]);
  const resolved = resolveManifest(data, (path) => locator.locate(path));
  const independent = (finding: { path: Path }) => !dependsOnFailure(finding, failed);
  const issues = firstIssues(
    (manifestSchema.safeParse(data).error?.issues ?? []).filter((issue) =>
      independent({ path: issue.path as Path }),
    ),
  );
  const findings = [
    ...failures.map((failure): Finding => ({ severity: 'error', ...failure })),
    ...[...issuesToFindings(issues.issues), ...resolved.findings].filter(independent),
  ];
  const { findings: _, ...state } = resolved;
  const problems = findings.map((finding) => {
    const problem = locator.toProblem(finding);
    const span = spans.find((s) => s.field === problem.field);
    const syntax = problem.severity === 'error' && span && startsWithIndicator(locator.text, span);
    return syntax ? passwordProblem(locator, span) : problem;
  });
  return { problems, state, unlistedErrors: issues.rest };
}

export interface Checking {
  locator: Locator;
  spans: PasswordSpan[];
  reported: string[];
}
