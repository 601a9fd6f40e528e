// The manifest's keys for the guards that read the service: how many days of a website's traffic are
// read before its delete (`traffic_window`), what unknown traffic does (`traffic_guard`), and the entry
// that asks for a website to be deleted although it still has visitors (`allow_delete_with_traffic`).
import { z } from 'zod';
import {
  TRAFFIC_GUARD_MODES,
  TRAFFIC_WINDOW_DEFAULT_DAYS,
  TRAFFIC_WINDOW_MAX_DAYS,
  type TrafficGuardMode,
} from '../model/index.js';
import { describeValue, expected } from './describe-value.js';
import { booleanSchema } from './fields.js';

const WINDOW_TEXT = `a whole number of days from 0 (off) to ${TRAFFIC_WINDOW_MAX_DAYS}`;

export const trafficWindowSchema = z
  .union([z.number(), z.string().regex(/^\d+$/)], {
    error: (iss) => expected(`must be ${WINDOW_TEXT}`, iss.input),
  })
  .transform((value, ctx) => {
    const days = Number(value);
    if (!Number.isInteger(days) || days < 0 || days > TRAFFIC_WINDOW_MAX_DAYS) {
      ctx.addIssue({ code: 'custom', message: `must be ${WINDOW_TEXT}; got ${describeValue(value)}` });
      return z.NEVER;
    }
    return days;
  })
  .describe(
    `Before a website is deleted, its visitors over this many days are read from the service (one request per delete), and a website that had any is not deleted. Default ${TRAFFIC_WINDOW_DEFAULT_DAYS}; 0 turns the traffic guard off; at most ${TRAFFIC_WINDOW_MAX_DAYS}.`,
  );

export const trafficGuardSchema = z
  .enum(TRAFFIC_GUARD_MODES, {
    error: (iss) => expected('must be lenient or strict', iss.input),
  })
  .describe(
    'What a delete whose traffic cannot be read does: lenient (default) deletes it and shows "traffic unknown"; strict refuses it like a website with visitors. A read that gets no answer (or still 429/502/503/504 after the retries) holds the delete back under either.',
  );

export const ALLOW_DELETE_KEY = 'allow_delete_with_traffic';

export const allowDeleteWithTrafficSchema = booleanSchema(
  'true: this entry is a website to DELETE (with prune) even though it still has visitors; the entry holds only its domain and this key, and is not kept. The way to let the traffic guard through for one website, reviewed where the manifest is.',
);

/** The manifest's traffic-guard settings as written, each left out when absent or invalid. */
export function readTrafficSettings(data: Record<string, unknown>): {
  trafficWindowDays?: number;
  trafficGuard?: TrafficGuardMode;
} {
  const window = trafficWindowSchema.optional().safeParse(data.traffic_window);
  const guard = trafficGuardSchema.optional().safeParse(data.traffic_guard);
  return {
    ...(window.success && window.data !== undefined ? { trafficWindowDays: window.data } : {}),
    ...(guard.success && guard.data !== undefined ? { trafficGuard: guard.data } : {}),
  };
}
