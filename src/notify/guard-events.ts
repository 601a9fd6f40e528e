import { type Plan, refusalText } from '../plan/index.js';

// The traffic guard's events, told apart from the mass-delete guard's `refused`: deletes it refused
// (the rest of the plan went ahead), and deletes that went ahead although their traffic could not be
// read (`traffic_guard: lenient`), which the reviewer of a plan sees and a daemon's operator must too.

/** A NotifyEvent of the traffic guard (declared here so that events.ts alone imports this file). */
interface TrafficEvent {
  event: 'traffic_refused' | 'traffic_unknown';
  text: string;
  websites: string[];
  identity?: string;
}

/** What a refusal is, without its count: the visitors of a website held back move every run. */
function refusalIdentity({ id, domain, traffic }: Plan['trafficRefused'][number]): string[] {
  const why = traffic.kind === 'known' ? 'visitors' : traffic.transient ? 'no answer' : 'unknown';
  return [String(id), domain, why];
}

export function trafficEvents(plan: Plan): TrafficEvent[] {
  const days = plan.trafficWindowDays ?? 0;
  const events: TrafficEvent[] = [];
  if (plan.trafficRefused.length > 0) {
    const refused = plan.trafficRefused.map((refusal) => refusalText(refusal, days));
    events.push({
      event: 'traffic_refused',
      text: `websites-sync did not delete ${refused.length} website(s) (traffic guard: visitors in the window, traffic unknown under traffic_guard: strict, or no answer to the traffic read; the rest of the plan went ahead): ${refused.join('; ')}. Add allow_delete_with_traffic: true to the entry, or run with --force, to delete one`,
      websites: plan.trafficRefused.map((refusal) => refusal.domain),
      // The same websites held back for the same kind of reason: told once, whatever their counts.
      identity: JSON.stringify(plan.trafficRefused.map(refusalIdentity)),
    });
  }
  const unknown = plan.changes.filter((c) => c.kind === 'delete' && c.traffic?.kind === 'unknown');
  if (unknown.length > 0) {
    events.push({
      event: 'traffic_unknown',
      text: `websites-sync: traffic unknown for ${unknown.length} delete(s), not blocked by the traffic guard (traffic_guard: lenient, or --force): ${unknown.map((c) => c.domain).join(', ')}`,
      websites: unknown.map((c) => c.domain),
    });
  }
  return events;
}
