import { createServer, IncomingHttpHeaders, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { waitFor } from './media';

export interface ReceivedDelivery {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as it arrived (what the signature covers). */
  body: string;
  json: { type: string; timestamp: string; data: Record<string, any> };
  /** Whether standardwebhooks accepted it with the secret known for its path when it arrived. */
  verified: boolean;
  verifyError: string | null;
  receivedAt: number;
}

/** How an endpoint answers its nth request (1-based); `hang` never answers. */
export type Answer = { status: number; body?: string } | 'hang';

/**
 * A webhook endpoint on loopback, as a customer would run one: it verifies every delivery with
 * the `standardwebhooks` package against the secret set for its path, and answers as told.
 */
export async function startWebhookReceiver() {
  const received: ReceivedDelivery[] = [];
  const secrets = new Map<string, string>();
  const answers = new Map<string, (n: number) => Answer>();
  const hanging = new Set<ServerResponse>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0];
      const body = Buffer.concat(chunks).toString('utf8');
      let verified = false;
      let verifyError: string | null = 'no secret set for this path';
      const secret = secrets.get(path);
      if (secret) {
        try {
          new Webhook(secret).verify(body, req.headers as Record<string, string>);
          verified = true;
          verifyError = null;
        } catch (error) {
          verifyError = (error as Error).message;
        }
      }
      received.push({ path, headers: req.headers, body, json: JSON.parse(body), verified, verifyError, receivedAt: Date.now() });
      const answer = (answers.get(path) ?? (() => ({ status: 200, body: 'ok' })))(received.filter((d) => d.path === path).length);
      if (answer === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    received,
    /** Deliveries should verify with `secret` on `path` from now on. */
    setSecret(path: string, secret: string) {
      secrets.set(path, secret);
    },
    answer(path: string, how: (n: number) => Answer) {
      answers.set(path, how);
    },
    at(path: string) {
      return received.filter((d) => d.path === path);
    },
    /** Waits until `path` has received deliveries matching `predicate`, at least `count` of them. */
    async waitFor(path: string, predicate: (d: ReceivedDelivery) => boolean, count = 1, timeoutMs = 60_000) {
      return waitFor(
        async () => received.filter((d) => d.path === path && predicate(d)),
        (matches) => matches.length >= count,
        timeoutMs,
        50,
      );
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
