// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is manifest syntax here, not a mistaken template.
import { describe, expect, it } from 'vitest';
import { interpolateString } from '../../src/manifest/interpolate.js';

const env = { NAME: 'value', EMPTY: '', NESTED: '${NAME}' };

describe('interpolateString', () => {
  it.each([
    ['no reference', 'plain', 'plain'],
    ['a variable', 'a-${NAME}-b', 'a-value-b'],
    ['two variables', '${NAME}${NAME}', 'valuevalue'],
    ['an empty variable', '[${EMPTY}]', '[]'],
    ['a default for an unset variable', '${UNSET:-fallback}', 'fallback'],
    ['a default for an empty variable', '${EMPTY:-fallback}', 'fallback'],
    ['a set variable ignores its default', '${NAME:-fallback}', 'value'],
    ['an empty default', '${UNSET:-}', ''],
    ['$${ escapes a literal ${', '$${NAME}', '${NAME}'],
    ['an escape next to a variable', '$${NAME}=${NAME}', '${NAME}=value'],
    ['a lone dollar stays', 'a$b $$ $', 'a$b $$ $'],
    ['substituted text is not scanned again', '${NESTED}', '${NAME}'],
  ])('%s', (_name, input, value) => {
    expect(interpolateString(input, env)).toEqual({ value });
  });

  it.each([
    [
      'an unset variable',
      'x${MISSING}',
      'environment variable MISSING is not set; set it or give a default with ${MISSING:-default}',
    ],
    [
      'an unterminated reference',
      'x${NAME',
      'invalid reference "${NAME": expected ${NAME} or ${NAME:-default}; write $${ for a literal "${"',
    ],
    [
      'an invalid name',
      '${A-B}',
      'invalid reference "${A-B}": expected ${NAME} or ${NAME:-default}; write $${ for a literal "${"',
    ],
    [
      'an empty reference',
      '${}',
      'invalid reference "${}": expected ${NAME} or ${NAME:-default}; write $${ for a literal "${"',
    ],
  ])('%s is an error', (_name, input, error) => {
    expect(interpolateString(input, env)).toEqual({ errors: [error] });
  });

  it('reports each unset variable once', () => {
    const result = interpolateString('${A}${B}${A}', {});
    expect(result).toEqual({
      errors: [
        'environment variable A is not set; set it or give a default with ${A:-default}',
        'environment variable B is not set; set it or give a default with ${B:-default}',
      ],
    });
  });
});
