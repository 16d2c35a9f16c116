import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** A cloud store's stand-in on loopback for the storage drivers' failure specs, and a file to upload. */
export interface FakeStore {
  /** `http://127.0.0.1:port` of the server. */
  endpoint: string;
  /** A temporary folder, removed after the file's tests. */
  dir: string;
  /** A 1000-byte file in `dir`. */
  file: string;
  /** Requests answered so far (a test may reset it). */
  requests: number;
}

/**
 * Registers beforeAll/afterAll hooks that start a server answering each request (its body read
 * first) with `answer`, and returns the handle they fill in.
 */
export function withFakeStore(name: string, answer: (req: IncomingMessage, res: ServerResponse) => void): FakeStore {
  const store = { requests: 0 } as FakeStore;
  let server: Server;
  beforeAll(async () => {
    server = createServer((req, res) => {
      store.requests += 1;
      req.resume();
      req.on('end', () => answer(req, res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    store.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    store.dir = mkdtempSync(path.join(tmpdir(), `vrs-${name}-`));
    store.file = path.join(store.dir, 'out.mp4');
    writeFileSync(store.file, Buffer.alloc(1000, 1));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(store.dir, { recursive: true, force: true });
  });
  return store;
}
