import { createServer } from 'node:net';

/**
 * A loopback port free a moment ago (closed again: connecting to it is refused until someone
 * listens). Drawn below the kernel's ephemeral range (32768–60999), where no outgoing connection
 * and no `listen(0)` of another test file can take it before the app listens.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const port = 20000 + Math.floor(Math.random() * 12000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
    if (attempt >= 50) throw new Error('no free loopback port between 20000 and 32000');
  }
}

