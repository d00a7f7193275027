import { connect, createServer, type Socket } from 'node:net';

export interface LossyProxy {
  port: number;
  /** The next `count` answers from upstream are lost: the connection is cut as the answer begins. */
  loseAnswers(count: number): void;
  /** Answers lost so far. */
  readonly lost: number;
  /** The next answer from upstream is held back (the caller keeps waiting) until release(). */
  holdNextAnswer(): { release(): void };
  close(): Promise<void>;
}

/**
 * A TCP relay to 127.0.0.1:upstreamPort that passes everything through, except answers it was told
 * to lose: the request reached upstream whole (it acted on it), the caller sees its connection
 * reset instead of the answer — the "lost answer" a retry must not turn into a second run.
 */
export async function startLossyProxy(upstreamPort: number): Promise<LossyProxy> {
  const sockets = new Set<Socket>();
  let toLose = 0;
  let lost = 0;
  let toHold: { held: boolean; releases: Array<() => void>; released: boolean } | undefined;
  const server = createServer((client) => {
    const upstream = connect(upstreamPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(upstream);
    let hold: NonNullable<typeof toHold> | undefined;
    upstream.on('data', (chunk: Buffer) => {
      if (hold === undefined && toHold !== undefined && !toHold.held) {
        toHold.held = true;
        hold = toHold;
      }
      if (hold !== undefined && !hold.released) {
        hold.releases.push(() => client.write(chunk));
        return;
      }
      if (toLose > 0) {
        toLose -= 1;
        lost += 1;
        client.resetAndDestroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address !== 'object') throw new Error('the proxy did not listen');
  return {
    port: address.port,
    loseAnswers(count) {
      toLose = count;
    },
    get lost() {
      return lost;
    },
    holdNextAnswer() {
      const hold = { held: false, releases: [] as Array<() => void>, released: false };
      toHold = hold;
      return {
        release() {
          hold.released = true;
          if (toHold === hold) toHold = undefined;
          for (const write of hold.releases.splice(0)) write();
        },
      };
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
