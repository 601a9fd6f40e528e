import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/cli/logger.js';
import { ConditionLog } from '../../src/daemon/index.js';
import { type Condition, sayCondition } from '../../src/model/index.js';

function capture() {
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = createLogger({
    level: 'info',
    destination: { write: (line: string) => lines.push(JSON.parse(line)) },
  });
  return { lines, logger, said: () => lines.map((line) => line.msg) };
}

const retry = (reason: string, retry = 1): Condition => ({
  key: `retry:GET /api/v1/websites:${reason}:${retry}`,
  level: 'warn',
  fields: { reason },
  message: `GET /api/v1/websites: ${reason}; retry ${retry}`,
  ended: 'service reachable again',
});

describe('ConditionLog', () => {
  it('says a condition once while resyncs meet it, its end once, and says it again when it comes back', () => {
    const { logger, said } = capture();
    const log = new ConditionLog();
    for (let run = 0; run < 3; run++) {
      log.say(retry('HTTP 503'), logger);
      log.say(retry('HTTP 503', 2), logger);
      log.settle(logger);
    }
    expect(said()).toEqual([
      'GET /api/v1/websites: HTTP 503; retry 1',
      'GET /api/v1/websites: HTTP 503; retry 2',
    ]);
    log.settle(logger);
    log.settle(logger);
    expect(said().slice(2)).toEqual(['service reachable again']);
    log.say(retry('HTTP 503'), logger);
    expect(said().slice(3)).toEqual(['GET /api/v1/websites: HTTP 503; retry 1']);
  });

  it('a condition that changes is said anew, and its end is not said while another with the same end stands', () => {
    const { logger, said } = capture();
    const log = new ConditionLog();
    log.say(retry('HTTP 503'), logger);
    log.settle(logger);
    log.say(retry('ECONNREFUSED'), logger);
    log.settle(logger);
    expect(said()).toEqual([
      'GET /api/v1/websites: HTTP 503; retry 1',
      'GET /api/v1/websites: ECONNREFUSED; retry 1',
    ]);
    log.settle(logger);
    expect(said().at(-1)).toBe('service reachable again');
  });

  it('without one (a --once run), every condition is logged every time', () => {
    const { logger, said } = capture();
    sayCondition(undefined, logger, retry('HTTP 503'));
    sayCondition(undefined, logger, retry('HTTP 503'));
    expect(said()).toHaveLength(2);
  });
});
