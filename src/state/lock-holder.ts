import { readFile, readlink } from 'node:fs/promises';
import { hostname } from 'node:os';

// Who holds a state's lock, in words a person can act on. A pid alone names a process only inside one
// PID namespace of one boot of one machine: two containers sharing a volume are both PID 1, and a
// reader in either would take the other's lock for its own. So a holder carries where its pid means
// something, and only a reader in that same place may judge it by its pid.

/** Who holds a lock on the state: the file's lock, or any other backend's. */
export interface LockHolder {
  /** The machine's (or container's) host name. */
  host: string;
  /** The process id, as seen in the holder's own PID namespace (1 in a container). */
  pid: number;
  /** What runs there: `websites-sync --once`, `websites-sync (daemon)`. */
  command: string;
  /** When it took the lock (ISO 8601). */
  since: string;
  /** The kernel's boot id (`/proc/sys/kernel/random/boot_id`), when known. */
  bootId?: string;
  /** The holder's PID namespace (`pid:[4026531836]`, from `/proc/self/ns/pid`), when known. */
  pidNamespace?: string;
}

/** This process as a holder, taking a lock now. */
export async function holderHere(command: string, now = Date.now()): Promise<LockHolder> {
  const [bootId, pidNamespace] = await Promise.all([
    readFile('/proc/sys/kernel/random/boot_id', 'utf8').then(
      (text) => text.trim(),
      () => undefined,
    ),
    readlink('/proc/self/ns/pid').catch(() => undefined),
  ]);
  return {
    host: hostname(),
    pid: process.pid,
    command,
    since: new Date(now).toISOString(),
    ...(bootId ? { bootId } : {}),
    ...(pidNamespace ? { pidNamespace } : {}),
  };
}

/**
 * Whether the holder's pid can be looked up from here: the same host, boot and PID namespace. Without
 * both ids (no /proc, or a holder that did not record them) nothing proves it, and only the heartbeat
 * tells whether the holder is alive.
 */
export function sameProcessSpace(a: LockHolder, b: LockHolder): boolean {
  return (
    a.host === b.host &&
    a.bootId !== undefined &&
    a.bootId === b.bootId &&
    a.pidNamespace !== undefined &&
    a.pidNamespace === b.pidNamespace
  );
}

/** "websites-sync --once on host web-2 (pid 1) since 10:02:11 UTC" (the date too when not today in UTC). */
export function describeHolder(holder: LockHolder, now = Date.now()): string {
  return `${holder.command} on host ${holder.host} (pid ${holder.pid}) since ${shownTime(holder.since, now)}`;
}

/**
 * In UTC, and said so: the holder is usually another machine (a CI runner, a replica) whose zone the
 * reader does not know, and the reader's own zone would name another day.
 */
function shownTime(iso: string, now: number): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return 'an unknown time';
  const [day, time] = at.toISOString().slice(0, 19).split('T') as [string, string];
  return day === new Date(now).toISOString().slice(0, 10) ? `${time} UTC` : `${day} ${time} UTC`;
}

/**
 * A holder read from outside (a lock file anyone on the volume can write): a field that is not plain
 * printable text of a sane length is not shown as it is, so that it cannot rewrite a terminal.
 */
export function holderFrom(value: unknown): LockHolder | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const pid = record.pid;
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
  const bootId = text(record.boot_id);
  const pidNamespace = text(record.pid_namespace);
  return {
    host: text(record.host) ?? 'an unknown host',
    pid,
    command: text(record.command) ?? 'an unknown command',
    since: text(record.since) ?? '',
    ...(bootId ? { bootId } : {}),
    ...(pidNamespace ? { pidNamespace } : {}),
  };
}

/** The holder as the lock file records it (snake_case, like the state file). */
export function holderRecord(holder: LockHolder): Record<string, string | number> {
  return {
    host: holder.host,
    pid: holder.pid,
    command: holder.command,
    since: holder.since,
    ...(holder.bootId ? { boot_id: holder.bootId } : {}),
    ...(holder.pidNamespace ? { pid_namespace: holder.pidNamespace } : {}),
  };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && /^[\x20-\x7e]{1,200}$/.test(value) ? value : undefined;
}
