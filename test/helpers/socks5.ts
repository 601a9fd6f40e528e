import { type AddressInfo, connect, createServer, type Socket } from 'node:net';

/** A running SOCKS5 proxy: its port, the destinations asked for (`host:port`), and its close. */
export interface Socks5Proxy {
  port: number;
  destinations: string[];
  close(): Promise<void>;
}

/**
 * A SOCKS5 proxy on loopback (RFC 1928: no authentication, CONNECT) that connects every destination to
 * `targetPort` on this machine, so that a test can stand in for any host behind it.
 */
export async function startSocks5(targetPort: number): Promise<Socks5Proxy> {
  const destinations: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    let buffered = Buffer.alloc(0);
    let greeted = false;
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (!greeted) {
        const methods = buffered[1];
        if (methods === undefined || buffered.length < 2 + methods) return;
        buffered = buffered.subarray(2 + methods);
        greeted = true;
        client.write(Buffer.from([5, 0])); // version 5, no authentication
      }
      // VER CMD RSV ATYP DST.ADDR DST.PORT; ATYP 3 is a name, its length first.
      if (buffered.length < 5) return;
      const kind = buffered[3];
      const addressLength = kind === 1 ? 4 : kind === 4 ? 16 : 1 + (buffered[4] ?? 0);
      if (buffered.length < 4 + addressLength + 2) return;
      const host = kind === 3 ? buffered.subarray(5, 4 + addressLength).toString() : `(address type ${kind})`;
      destinations.push(`${host}:${buffered.readUInt16BE(4 + addressLength)}`);
      const rest = buffered.subarray(4 + addressLength + 2);
      client.off('data', onData);
      const upstream = connect(targetPort, '127.0.0.1', () => {
        client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0])); // succeeded
        if (rest.length > 0) upstream.write(rest);
        upstream.pipe(client).pipe(upstream);
      });
      sockets.add(upstream);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    };
    client.on('data', onData);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    port: (server.address() as AddressInfo).port,
    destinations,
    close: () =>
      new Promise((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  };
}
