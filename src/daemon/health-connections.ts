import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

// The health server's connection limit. Node's own (`server.maxConnections`) refuses every connection
// past the limit: a client that holds that many idle keep-alive connections (refreshed before the idle
// timeout closes them) then makes every probe of the kubelet fail, and a healthy daemon is restarted.
// Here a new connection takes the place of the one idle the longest instead; only when every connection
// is in the middle of a request (which the request timeout ends) is the new one refused.

/** How many connections are open, and how many of them are in the middle of a request. */
export interface ConnectionCounts {
  open: number;
  busy: number;
}

export interface ConnectionLimitOptions {
  max: number;
  /** A connection closed to make room (`evicted`) or refused because all are busy (`refused`). */
  onLimit?: (what: 'evicted' | 'refused', counts: ConnectionCounts) => void;
  /** Every change of the counts (tests wait on it; nothing else needs it). */
  onChange?: (counts: ConnectionCounts) => void;
}

interface Tracked {
  /** Requests received whose response has not ended. */
  requests: number;
  /** Bytes arrived since the connection was last idle (the start of a request, headers not all in). */
  started: boolean;
}

export function limitConnections(server: Server, options: ConnectionLimitOptions): void {
  // In the order they last became idle: the first idle one is the one idle the longest.
  const tracked = new Map<Socket, Tracked>();
  const counts = (): ConnectionCounts => {
    let busy = 0;
    for (const state of tracked.values()) if (isBusy(state)) busy++;
    return { open: tracked.size, busy };
  };
  const changed = () => options.onChange?.(counts());
  server.on('connection', (socket: Socket) => {
    if (tracked.size >= options.max && !makeRoom(tracked)) {
      socket.destroy();
      options.onLimit?.('refused', counts());
      return;
    }
    const state: Tracked = { requests: 0, started: false };
    tracked.set(socket, state);
    // A listener of its own: Node's HTTP parser reads the socket first, so a request that arrived
    // whole in this chunk has been counted (`request`) by the time this runs.
    socket.on('data', () => {
      if (state.started) return;
      state.started = true;
      changed();
    });
    socket.once('close', () => {
      tracked.delete(socket);
      changed();
    });
    changed();
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    const state = tracked.get(socket);
    if (!state) return;
    state.requests++;
    res.once('close', () => {
      state.requests--;
      if (state.requests > 0 || !tracked.has(socket)) return;
      state.started = false;
      // Idle from now: last in the order of becoming idle.
      tracked.delete(socket);
      tracked.set(socket, state);
      changed();
    });
  });
  function makeRoom(open: Map<Socket, Tracked>): boolean {
    for (const [socket, state] of open) {
      if (isBusy(state)) continue;
      // Counted gone now, so that a burst of new connections evicts one each, not the same one.
      open.delete(socket);
      socket.destroy();
      options.onLimit?.('evicted', counts());
      return true;
    }
    return false;
  }
}

function isBusy(state: Tracked): boolean {
  return state.requests > 0 || state.started;
}
