import { lookup } from 'node:dns/promises';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, createServer as createTcpServer, Server as TcpServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { AddressPolicy } from '../src/infra/http/address-policy';
import { FetchError, GuardedFetcher, Resolver } from '../src/infra/http/guarded-fetcher';
import { startTestApp } from './helpers/test-app';

/**
 * Real HTTP servers on loopback only. 127.0.0.2 stands in for a server on the internet (the
 * fetchers here treat that one address as public); 127.0.0.1 is the private target that must
 * never be reached.
 */
const PUBLIC_IP = '127.0.0.2';
const CHUNKED_TOTAL = 128 * 16_384;

async function failure(promise: Promise<unknown>): Promise<FetchError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof FetchError) return error;
    throw error;
  }
  throw new Error('expected a FetchError');
}

async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function listen<T extends Server | TcpServer>(server: T, host: string): Promise<{ server: T; port: number }> {
  return new Promise((resolve) => server.listen(0, host, () => resolve({ server, port: (server.address() as AddressInfo).port })));
}

describe('GuardedFetcher against loopback servers', () => {
  let publicServer: Server;
  let otherOrigin: Server;
  let privateServer: Server;
  let silentTcp: TcpServer;
  const openSockets = new Set<Socket>();
  let base: string;
  let otherBase: string;
  let privatePort: number;
  let silentPort: number;
  let privateHits = 0;
  let dir: string;

  // `*.test` names are the tests' own zone; everything else (localhost) goes to the system resolver.
  const resolve: Resolver = async (hostname) => {
    if (hostname === 'public.test') return [{ address: PUBLIC_IP, family: 4 }];
    if (hostname === 'mixed.test') return [{ address: PUBLIC_IP, family: 4 }, { address: '127.0.0.1', family: 4 }];
    return lookup(hostname, { all: true });
  };
  const fetcher = new GuardedFetcher({ addressPolicy: new AddressPolicy({ treatAsPublic: [PUBLIC_IP] }), resolve });

  const echo = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, authorization: req.headers.authorization ?? null, body: Buffer.concat(chunks).toString() }));
    });
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'vrs-fetch-'));
    ({ server: privateServer, port: privatePort } = await listen(
      createServer((_req, res) => {
        privateHits += 1;
        res.end('internal secret');
      }),
      '127.0.0.1',
    ));
    ({ server: otherOrigin } = await listen(createServer(echo), PUBLIC_IP));
    otherBase = `http://${PUBLIC_IP}:${(otherOrigin.address() as AddressInfo).port}`;
    ({ server: silentTcp, port: silentPort } = await listen(
      createTcpServer((socket) => {
        openSockets.add(socket); // accepts, then says nothing: TLS never completes
        socket.on('error', () => undefined);
      }),
      PUBLIC_IP,
    ));
    const routes: Record<string, (req: IncomingMessage, res: ServerResponse, rest: string) => void> = {
      ok: (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain', etag: '"v1"' });
        res.end('hello from the internet');
      },
      echo,
      status: (_req, res, rest) => res.writeHead(Number(rest)).end('no'),
      'to-private': (_req, res) => res.writeHead(302, { location: `http://127.0.0.1:${privatePort}/secret` }).end(),
      'to-localhost': (_req, res) => res.writeHead(301, { location: `http://localhost:${privatePort}/secret` }).end(),
      'to-metadata': (_req, res) => res.writeHead(307, { location: 'http://169.254.169.254/computeMetadata/v1/' }).end(),
      'to-file': (_req, res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end(),
      'to-other-origin': (_req, res) => res.writeHead(302, { location: `${otherBase}/echo` }).end(),
      'to-same-origin': (_req, res) => res.writeHead(302, { location: '/echo' }).end(),
      'see-other': (_req, res) => res.writeHead(303, { location: '/echo' }).end(),
      'keep-method': (_req, res) => res.writeHead(307, { location: '/echo' }).end(),
      chain: (_req, res, rest) => {
        const left = Number(rest);
        if (left === 0) return routes.ok(_req, res, '');
        res.writeHead(302, { location: `/chain/${left - 1}` }).end();
      },
      'stall-headers': () => undefined,
      'stall-body': (_req, res) => {
        res.writeHead(200, { 'content-type': 'video/mp4' });
        res.write(Buffer.alloc(1000));
      },
      'chunked-big': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream' }); // chunked: no Content-Length
        let sent = 0;
        const push = () => {
          while (sent < CHUNKED_TOTAL) {
            sent += 16_384;
            if (!res.write(Buffer.alloc(16_384, 1))) return res.once('drain', push);
          }
          res.end();
        };
        res.on('close', () => (sent = Infinity));
        push();
      },
      'declared-big': (_req, res) => {
        res.writeHead(200, { 'content-length': '6000000000', 'content-type': 'video/mp4' });
        res.write(Buffer.alloc(1000));
      },
    };
    ({ server: publicServer } = await listen(
      createServer((req, res) => {
        const [, name, rest = ''] = /^\/([^/?]+)\/?([^?]*)/.exec(req.url!) ?? [];
        (routes[name] ?? ((_q, r) => r.writeHead(404).end()))(req, res, rest);
      }),
      PUBLIC_IP,
    ));
    base = `http://${PUBLIC_IP}:${(publicServer.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const socket of openSockets) socket.destroy();
    for (const server of [publicServer, otherOrigin, privateServer]) server.closeAllConnections();
    await Promise.all([publicServer, otherOrigin, privateServer, silentTcp].map((s) => new Promise((r) => s.close(r))));
    rmSync(dir, { recursive: true, force: true });
  });

  afterEach(() => {
    expect(privateHits).toBe(0);
  });

  it('fetches from an allowed server by address and by name', async () => {
    const byAddress = await fetcher.request(`${base}/ok`);
    expect(byAddress.status).toBe(200);
    expect(byAddress.headers['content-type']).toBe('text/plain');
    expect((await readAll(byAddress.body)).toString()).toBe('hello from the internet');

    const port = new URL(base).port;
    const byName = await fetcher.request(`http://public.test:${port}/ok`);
    expect(byName.finalUrl).toBe(`http://public.test:${port}/ok`);
    expect((await readAll(byName.body)).toString()).toBe('hello from the internet');

    const head = await fetcher.request(`${base}/ok`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect((await readAll(head.body)).length).toBe(0);
  });

  it('refuses loopback by address, by name (localhost) and in IPv6 spellings', async () => {
    for (const url of [
      `http://127.0.0.1:${privatePort}/`,
      `http://localhost:${privatePort}/`,
      `http://[::ffff:127.0.0.1]:${privatePort}/`,
      `http://2130706433:${privatePort}/`,
      `http://mixed.test:${privatePort}/`,
    ]) {
      const error = await failure(fetcher.request(url));
      expect(error.reason).toBe('forbidden_address');
      expect(error.message).toMatch(/is a loopback address/);
    }
    const error = await failure(fetcher.request(`http://localhost:${privatePort}/`));
    expect(error.message).toMatch(/^localhost \(127\.0\.0\.1\) is a loopback address \(127\.0\.0\.0\/8\)/);
  });

  it('refuses a redirect from an allowed server to a forbidden address', async () => {
    for (const route of ['to-private', 'to-localhost', 'to-metadata']) {
      expect((await failure(fetcher.request(`${base}/${route}`))).reason).toBe('forbidden_address');
    }
    expect((await failure(fetcher.downloadToFile(`${base}/to-private`, path.join(dir, 'secret.txt')))).reason).toBe('forbidden_address');
    expect(existsSync(path.join(dir, 'secret.txt'))).toBe(false);
    const scheme = await failure(fetcher.request(`${base}/to-file`));
    expect(scheme.reason).toBe('invalid_url');
  });

  it('follows redirects up to the limit', async () => {
    const five = await fetcher.request(`${base}/chain/5`);
    expect(five.status).toBe(200);
    expect(five.finalUrl).toBe(`${base}/chain/0`);
    five.body.resume();

    const six = await failure(fetcher.request(`${base}/chain/6`));
    expect(six.reason).toBe('too_many_redirects');
    expect((await failure(fetcher.request(`${base}/chain/2`, { maxRedirects: 1 }))).reason).toBe('too_many_redirects');
    expect((await failure(fetcher.request(`${base}/chain/1`, { maxRedirects: 0 }))).reason).toBe('too_many_redirects');
  });

  it('keeps Authorization on the same origin and drops it across origins', async () => {
    const headers = { Authorization: 'Bearer secret-token' };
    const same = JSON.parse((await readAll((await fetcher.request(`${base}/to-same-origin`, { headers })).body)).toString());
    expect(same.authorization).toBe('Bearer secret-token');
    const cross = JSON.parse((await readAll((await fetcher.request(`${base}/to-other-origin`, { headers })).body)).toString());
    expect(cross.authorization).toBeNull();
  });

  it('POSTs a body; 303 continues as GET, 307 keeps the method and body', async () => {
    const posted = await fetcher.request(`${base}/echo`, { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } });
    expect(JSON.parse((await readAll(posted.body)).toString())).toEqual({ method: 'POST', authorization: null, body: '{"a":1}' });
    const seeOther = await fetcher.request(`${base}/see-other`, { method: 'POST', body: 'x' });
    expect(JSON.parse((await readAll(seeOther.body)).toString())).toMatchObject({ method: 'GET', body: '' });
    const kept = await fetcher.request(`${base}/keep-method`, { method: 'POST', body: 'y' });
    expect(JSON.parse((await readAll(kept.body)).toString())).toMatchObject({ method: 'POST', body: 'y' });
  });

  it('times out a connection that never completes (TLS handshake unanswered)', async () => {
    const started = Date.now();
    const error = await failure(fetcher.request(`https://${PUBLIC_IP}:${silentPort}/`, { connectTimeoutMs: 300 }));
    expect(error.reason).toBe('connect_timeout');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('times out a server that never answers, or stalls mid-body', async () => {
    const started = Date.now();
    const headers = await failure(fetcher.request(`${base}/stall-headers`, { readTimeoutMs: 300 }));
    expect(headers.reason).toBe('read_timeout');
    expect(Date.now() - started).toBeLessThan(2000);

    const stalled = await fetcher.request(`${base}/stall-body`, { readTimeoutMs: 300 });
    expect(stalled.status).toBe(200);
    expect((await failure(readAll(stalled.body))).reason).toBe('read_timeout');

    const target = path.join(dir, 'stalled.mp4');
    expect((await failure(fetcher.downloadToFile(`${base}/stall-body`, target, { readTimeoutMs: 300 }))).reason).toBe('read_timeout');
    expect(readdirSync(dir).filter((f) => f.startsWith('stalled'))).toEqual([]);
  });

  it('does not count a slow reader of its own as a silent server', async () => {
    const response = await fetcher.request(`${base}/chunked-big`, { readTimeoutMs: 200 });
    await new Promise((r) => setTimeout(r, 700));
    expect((await readAll(response.body)).length).toBe(CHUNKED_TOTAL);
  });

  it('stops a body that streams past the cap, leaving no partial file', async () => {
    const response = await fetcher.request(`${base}/chunked-big`, { maxBytes: 100_000 });
    expect(response.headers['content-length']).toBeUndefined();
    const error = await failure(readAll(response.body));
    expect(error.reason).toBe('too_large');
    expect(error.message).toMatch(/more than the limit of 100000 bytes/);

    const target = path.join(dir, 'big.bin');
    expect((await failure(fetcher.downloadToFile(`${base}/chunked-big`, target, { maxBytes: 100_000 }))).reason).toBe('too_large');
    expect(readdirSync(dir).filter((f) => f.startsWith('big'))).toEqual([]);

    const whole = await fetcher.downloadToFile(`${base}/chunked-big`, target, { maxBytes: 3_000_000 });
    expect(whole.size).toBe(CHUNKED_TOTAL);
  });

  it('refuses a declared Content-Length over the cap (default 5 GiB) before reading', async () => {
    const declared = await failure(fetcher.request(`${base}/declared-big`));
    expect(declared.reason).toBe('too_large');
    expect(declared.message).toMatch(/declares 6000000000 bytes, over the limit of 5368709120/);
    const small = await fetcher.request(`${base}/ok`, { maxBytes: 10 });
    expect((await failure(readAll(small.body))).reason).toBe('too_large');
  });

  it('downloads to a file, and reports a non-2xx answer as http_status', async () => {
    const target = path.join(dir, 'sub', 'ok.txt');
    const result = await fetcher.downloadToFile(`${base}/chain/1`, target);
    expect(result).toEqual({ size: 23, contentType: 'text/plain', finalUrl: `${base}/chain/0`, etag: '"v1"' });
    expect(readFileSync(target, 'utf8')).toBe('hello from the internet');

    const missing = await failure(fetcher.downloadToFile(`${base}/status/404`, path.join(dir, 'missing.txt')));
    expect(missing).toMatchObject({ reason: 'http_status', status: 404 });
    expect(existsSync(path.join(dir, 'missing.txt'))).toBe(false);

    // request() hands any final status to the caller (webhook deliveries record it).
    const answer = await fetcher.request(`${base}/status/500`);
    expect(answer.status).toBe(500);
    expect((await readAll(answer.body)).toString()).toBe('no');
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    expect((await failure(fetcher.request(`${base}/stall-headers`, { signal: controller.signal }))).reason).toBe('aborted');

    const later = new AbortController();
    const response = await fetcher.request(`${base}/stall-body`, { signal: later.signal });
    setTimeout(() => later.abort(), 100);
    expect((await failure(readAll(response.body))).reason).toBe('aborted');
  });

  it('reaches loopback when private networks are allowed', async () => {
    const permissive = new GuardedFetcher({ addressPolicy: new AddressPolicy({ allowPrivateNetwork: true }) });
    const response = await permissive.request(`http://localhost:${privatePort}/`);
    expect((await readAll(response.body)).toString()).toBe('internal secret');
    privateHits = 0;
    expect((await failure(permissive.request('http://169.254.169.254/'))).reason).toBe('forbidden_address');
  });

  it('is wired from ALLOW_PRIVATE_NETWORK: off by default, on when "true"', async () => {
    const strict = await startTestApp({ role: 'api' });
    const relaxed = await startTestApp({ role: 'api', env: { ALLOW_PRIVATE_NETWORK: 'true' } });
    try {
      expect((await failure(strict.running.app.get(GuardedFetcher).request(`http://127.0.0.1:${privatePort}/`))).reason).toBe('forbidden_address');
      const response = await relaxed.running.app.get(GuardedFetcher).request(`http://127.0.0.1:${privatePort}/`);
      expect((await readAll(response.body)).toString()).toBe('internal secret');
      privateHits = 0;
    } finally {
      await strict.close();
      await relaxed.close();
    }
  });
});
