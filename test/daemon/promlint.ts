// The rules `promtool check metrics` applies (Prometheus's promlint), for the exposition text of a
// registry: promtool itself is a Go binary this machine does not have.

interface Family {
  name: string;
  type?: string;
  help?: string;
  samples: string[];
}

const NON_BASE_UNITS =
  /_(milliseconds|microseconds|nanoseconds|minutes|hours|days|kilobytes|megabytes|gigabytes|bits|percent|celsius|fahrenheit)(_|$)/;
const ABBREVIATED_UNITS = /_(s|ms|us|ns|sec|b|kb|mb|gb|tb|pb|m|h|d)(_|$)/;
const SNAKE_CASE = /^[a-z_][a-z0-9_]*$/;

export function promlint(text: string): string[] {
  const problems: string[] = [];
  for (const family of familiesOf(text, problems)) problems.push(...lintFamily(family));
  return problems;
}

function familiesOf(text: string, problems: string[]): Family[] {
  const families = new Map<string, Family>();
  const family = (name: string) => families.get(name) ?? families.set(name, { name, samples: [] }).get(name)!;
  for (const line of text.split('\n')) {
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta as unknown as [string, string, string, string];
      const entry = family(name);
      if (kind === 'HELP') entry.help = rest;
      else if (entry.type) problems.push(`${name}: second TYPE line`);
      else entry.type = rest;
    } else if (line.trim() !== '') {
      const name = /^[^{ ]+/.exec(line)?.[0] ?? '';
      const base = [...families.keys()].find(
        (f) => name === f || (/^_(bucket|sum|count)$/.test(name.slice(f.length)) && name.startsWith(f)),
      );
      if (!base) problems.push(`${name}: sample without TYPE`);
      else family(base).samples.push(line);
    }
  }
  return [...families.values()];
}

function lintFamily({ name, type, help, samples }: Family): string[] {
  const problems: string[] = [];
  if (!help) problems.push(`${name}: no help text`);
  if (!SNAKE_CASE.test(name)) problems.push(`${name}: metric names should be written in snake_case`);
  if (name.includes(':')) problems.push(`${name}: metric names should not contain ':'`);
  if (type === 'counter' && !name.endsWith('_total'))
    problems.push(`${name}: counter metrics should have "_total" suffix`);
  if (type !== 'counter' && name.endsWith('_total'))
    problems.push(`${name}: non-counter metrics should not have "_total" suffix`);
  if (type !== 'histogram' && /_bucket$/.test(name))
    problems.push(`${name}: non-histogram metrics should not have "_bucket" suffix`);
  if (type !== 'histogram' && type !== 'summary' && /_(count|sum)$/.test(name))
    problems.push(`${name}: non-histogram and non-summary metrics should not have "_count"/"_sum" suffix`);
  if (NON_BASE_UNITS.test(name)) problems.push(`${name}: use base units (seconds, bytes, ratio)`);
  if (ABBREVIATED_UNITS.test(name))
    problems.push(`${name}: metric names should not contain abbreviated units`);
  if (new RegExp(`_(${type ?? 'untyped'})(_|$)`).test(name))
    problems.push(`${name}: metric name should not include type`);
  for (const sample of samples) {
    for (const label of sample.matchAll(/[{,]([^=,{}]+)=/g)) {
      if (!SNAKE_CASE.test(label[1] ?? ''))
        problems.push(`${name}: label names should be written in snake_case`);
    }
    // Go's ParseFloat, which promtool uses, reads NaN and Inf in any case.
    if (!/ (-?[0-9.e+-]+|nan|[+-]?inf)$/i.test(sample))
      problems.push(`${name}: unparsable sample: ${sample}`);
  }
  return problems;
}
