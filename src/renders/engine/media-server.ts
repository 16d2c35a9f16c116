import { randomBytes } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import { AddressInfo } from 'node:net';
import * as path from 'node:path';

/**
 * Serves a render's downloaded inputs to the browser on 127.0.0.1, each job under an unguessable
 * prefix. Chromium reads media over HTTP (with Range requests for video seeking); the composition
 * never touches the network beyond this loopback server.
 */
export class MediaServer {
  private server: Server | null = null;
  private readonly mounts = new Map<string, Map<string, { file: string; contentType: string }>>();
  private baseUrl = '';

  async start(): Promise<void> {
    if (this.server) return;
    const server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    server.unref();
    this.server = server;
    this.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** Publishes files; returns their URLs (same order) and a function that withdraws them. */
  mount(files: { file: string; contentType: string }[]): { urls: string[]; unmount: () => void } {
    const prefix = randomBytes(12).toString('hex');
    const entries = new Map<string, { file: string; contentType: string }>();
    const urls = files.map((entry, index) => {
      const name = `${index}${path.extname(entry.file)}`;
      entries.set(name, entry);
      return `${this.baseUrl}/${prefix}/${name}`;
    });
    this.mounts.set(prefix, entries);
    return { urls, unmount: () => this.mounts.delete(prefix) };
  }

  /** The file behind a URL `mount` returned, while it is mounted; else null. */
  fileAt(url: string): string | null {
    if (!this.baseUrl || !url.startsWith(`${this.baseUrl}/`)) return null;
    const [prefix, name] = url.slice(this.baseUrl.length + 1).split('/');
    return this.mounts.get(prefix)?.get(name)?.file ?? null;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const [, prefix, name] = (req.url ?? '').split('?')[0].split('/');
    const entry = this.mounts.get(prefix)?.get(name);
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (!entry || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404).end();
      return;
    }
    let size: number;
    try {
      size = statSync(entry.file).size;
    } catch {
      res.writeHead(404).end(); // withdrawn while the browser still asked for it
      return;
    }
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
    let start = 0;
    let end = size - 1;
    if (range) {
      start = range[1] ? Number(range[1]) : Math.max(0, size - Number(range[2]));
      end = range[1] && range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
      if (start > end || start >= size) {
        res.writeHead(416, { 'Content-Range': `bytes */${size}` }).end();
        return;
      }
    }
    res.writeHead(range ? 206 : 200, {
      'Content-Type': entry.contentType,
      'Content-Length': end - start + 1,
      'Accept-Ranges': 'bytes',
      ...(range ? { 'Content-Range': `bytes ${start}-${end}/${size}` } : {}),
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    // pipeline closes the file when Chromium aborts a ranged read (it does on seeks) and turns a
    // read error into a dropped response instead of an uncaught exception.
    pipeline(createReadStream(entry.file, { start, end }), res, () => undefined);
  }
}
