import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// A loopback webhook receiver for `--notify-url`: it answers every POST with `status` (settable while
// it runs) and keeps the events it took (2xx) apart from the posts it turned away.

export interface Receiver {
  url: string;
  /** The status every POST is answered with (200 unless set). */
  status: number;
  /** The events answered 2xx, in order. */
  received: Array<Record<string, unknown>>;
  /** The events of the posts answered otherwise, in order. */
  turnedAway: Array<Record<string, unknown>>;
  /** Every body as it came, in order (the bytes a receiver's screen would show). */
  bodies: string[];
  /** The events of the kinds set aside (`startReceiver`'s `setAside`), in order. */
  setAside: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * `setAside`: event kinds kept apart from `received` and `turnedAway` (a test of other kinds whose runs
 * also carry plan warnings, told as a `warnings` event).
 */
export async function startReceiver(options: { setAside?: string[] } = {}): Promise<Receiver> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      receiver.bodies.push(body);
      const event = JSON.parse(body) as Record<string, unknown>;
      const took = receiver.status >= 200 && receiver.status < 300;
      if (options.setAside?.includes(String(event.event))) receiver.setAside.push(event);
      else (took ? receiver.received : receiver.turnedAway).push(event);
      res.statusCode = receiver.status;
      res.end(took ? 'ok' : 'no');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const receiver: Receiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    status: 200,
    received: [],
    turnedAway: [],
    bodies: [],
    setAside: [],
    close: () => new Promise((done) => server.close(() => done())),
  };
  return receiver;
}
