import type { Server } from 'node:http';
import type { NextFunction, Request, Response } from 'express';

/**
 * Stops the HTTP server the way a rolling restart needs: no new connection is accepted, the
 * requests in flight are answered (each with `Connection: close`), then the connections are
 * closed. Event streams never end by themselves, so they are not waited for.
 */
export class HttpDrain {
  private readonly active = new Set<Response>();
  private stopping = false;

  readonly middleware = (_req: Request, res: Response, next: NextFunction): void => {
    this.active.add(res);
    res.once('close', () => this.active.delete(res));
    if (this.stopping) res.setHeader('Connection', 'close');
    next();
  };

  async drain(server: Server, graceMs: number): Promise<void> {
    this.stopping = true;
    server.close();
    server.closeIdleConnections();
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline && [...this.active].some((res) => !isEventStream(res))) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      server.closeIdleConnections();
    }
    server.closeAllConnections();
  }
}

function isEventStream(res: Response): boolean {
  return String(res.getHeader('Content-Type') ?? '').startsWith('text/event-stream');
}
