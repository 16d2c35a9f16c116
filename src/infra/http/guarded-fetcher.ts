import { randomBytes } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns/promises';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP, LookupFunction } from 'node:net';
import * as path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MAX_FILE_BYTES } from '../../common/limits';
import { httpUrlProblem } from '../../../composition/src/schema';
import { AddressPolicy, ForbiddenRange } from './address-policy';

export type FetchFailureReason =
  | 'invalid_url'
  | 'forbidden_address'
  | 'dns_failure'
  | 'connect_timeout'
  | 'read_timeout'
  | 'too_large'
  | 'too_many_redirects'
  | 'http_status'
  | 'network'
  | 'aborted';

/** Every failure of the guarded fetcher. `status` is set for `http_status`. */
export class FetchError extends Error {
  constructor(
    readonly reason: FetchFailureReason,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface FetchOptions {
  method?: 'GET' | 'HEAD' | 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Largest body accepted, declared or streamed; default 5 GiB. */
  maxBytes?: number;
  /** From the start of a request (name resolution included) until the connection (and TLS) is up. */
  connectTimeoutMs?: number;
  /** Longest silence once connected: waiting for the response, or between body chunks. */
  readTimeoutMs?: number;
  maxRedirects?: number;
  signal?: AbortSignal;
}

export interface FetchResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The URL that answered, after redirects. */
  finalUrl: string;
  /** Fails with a FetchError (`too_large`, `read_timeout`, `network`, `aborted`) while streaming. */
  body: Readable;
}

export type DownloadOptions = Pick<FetchOptions, 'maxBytes' | 'connectTimeoutMs' | 'readTimeoutMs' | 'signal'>;

export interface DownloadResult {
  size: number;
  contentType: string | null;
  finalUrl: string;
  etag: string | null;
}

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export interface GuardedFetcherOptions {
  addressPolicy?: AddressPolicy;
  /** Name resolution (all addresses of a host); the system resolver unless a test substitutes one. */
  resolve?: Resolver;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers that prove who the caller is; they never follow a redirect to another origin. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

/** One request/response exchange; `failure` is why we tore it down, when we did. */
interface Exchange {
  req: http.ClientRequest;
  /** Null until the response headers arrive. */
  res: http.IncomingMessage | null;
  failure: FetchError | null;
}

type AnsweredExchange = Exchange & { res: http.IncomingMessage };

/**
 * The only way the service fetches a URL (sources, ingest, images, fonts, LUTs, watermarks,
 * webhooks). http/https only; every connection, including each redirect hop, resolves the host
 * itself and refuses it when any of its addresses is outside the public internet (address-policy.ts);
 * IP literals are checked the same way. Sizes are capped while streaming, and every phase has a
 * timeout. Redirects are followed here, one validated hop at a time.
 */
export class GuardedFetcher {
  private readonly policy: AddressPolicy;
  private readonly resolve: Resolver;

  constructor(options: GuardedFetcherOptions = {}) {
    this.policy = options.addressPolicy ?? new AddressPolicy();
    this.resolve = options.resolve ?? ((hostname) => dnsLookup(hostname, { all: true }));
  }

  /**
   * Resolves with the final response whatever its status (a webhook delivery records a 500 and
   * its excerpt); only downloadToFile turns a non-2xx status into a FetchError.
   */
  async request(url: string, options: FetchOptions = {}): Promise<FetchResponse> {
    const maxRedirects = options.maxRedirects ?? 5;
    let current = parseFetchUrl(url);
    let method = options.method ?? 'GET';
    let body = options.body;
    let headers: Record<string, string> = { 'user-agent': 'video-render-service', ...lowerCaseKeys(options.headers ?? {}) };
    for (let redirects = 0; ; redirects++) {
      const exchange = await this.exchange(current, method, headers, body, options);
      const { statusCode = 0, headers: responseHeaders } = exchange.res;
      const location = responseHeaders.location;
      if (!REDIRECT_STATUSES.has(statusCode) || !location) return this.finalResponse(exchange, current, options);
      exchange.req.destroy();
      if (redirects >= maxRedirects) {
        throw new FetchError('too_many_redirects', `More than ${maxRedirects} redirects, starting at ${forMessages(url)}`);
      }
      let next: URL;
      try {
        next = parseFetchUrl(new URL(location, current).href);
      } catch (error) {
        throw error instanceof FetchError ? error : new FetchError('invalid_url', `${forMessages(current.href)} redirects to an invalid URL`);
      }
      if (next.origin !== current.origin) {
        headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.has(name)));
      }
      // As browsers do: 303, and 301/302 after a POST, continue as a GET without the body.
      if (statusCode === 303 || ((statusCode === 301 || statusCode === 302) && method === 'POST')) {
        if (method !== 'HEAD') method = 'GET';
        body = undefined;
        headers = Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'content-type'));
      }
      current = next;
    }
  }

  /**
   * Streams a 2xx body into `filePath` through a temporary file beside it, renamed into place
   * when complete; on any failure nothing is left at either path.
   */
  async downloadToFile(url: string, filePath: string, options: DownloadOptions = {}): Promise<DownloadResult> {
    const response = await this.request(url, { ...options, method: 'GET' });
    if (response.status < 200 || response.status > 299) {
      response.body.destroy();
      throw new FetchError('http_status', `${forMessages(response.finalUrl)} answered HTTP ${response.status}`, response.status);
    }
    await mkdir(path.dirname(filePath), { recursive: true });
    const temp = `${filePath}.${randomBytes(6).toString('hex')}.part`;
    try {
      await pipeline(response.body, createWriteStream(temp, { flags: 'wx' }));
      const { size } = await stat(temp);
      await rename(temp, filePath);
      return {
        size,
        contentType: response.headers['content-type'] ?? null,
        finalUrl: response.finalUrl,
        etag: typeof response.headers.etag === 'string' ? response.headers.etag : null,
      };
    } finally {
      await rm(temp, { force: true });
    }
  }

  /** One hop: connects (through the guarded lookup) and resolves when the response headers arrive. */
  private exchange(
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: string | Buffer | undefined,
    options: FetchOptions,
  ): Promise<AnsweredExchange> {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // Node connects to IP literals without calling `lookup`, so they are checked here.
    if (isIP(host)) this.assertAllowed(host, host);
    const signal = options.signal;
    if (signal?.aborted) throw abortedError();

    const requestHeaders = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const secure = url.protocol === 'https:';
    // No agent: a fresh connection per request, so every connection goes through the lookup.
    const req = (secure ? https : http).request(url, { method, headers: requestHeaders, agent: false, lookup: this.lookup });
    const exchange: Exchange = { req, res: null, failure: null };
    const tearDown = (failure: FetchError) => {
      exchange.failure ??= failure;
      req.destroy(exchange.failure);
      exchange.res?.destroy(exchange.failure);
    };

    const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    const readTimeoutMs = options.readTimeoutMs ?? 30_000;
    const connectTimer = setTimeout(
      () => tearDown(new FetchError('connect_timeout', `No connection to ${url.host} within ${connectTimeoutMs} ms`)),
      connectTimeoutMs,
    );
    req.once('socket', (socket) => {
      socket.once(secure ? 'secureConnect' : 'connect', () => {
        clearTimeout(connectTimer);
        socket.setTimeout(readTimeoutMs, () => {
          // Silence while our own reader holds the body back (backpressure) is not the server's.
          if (exchange.res?.isPaused()) socket.setTimeout(readTimeoutMs);
          else tearDown(new FetchError('read_timeout', `${url.host} sent nothing for ${readTimeoutMs} ms`));
        });
      });
    });
    req.once('close', () => clearTimeout(connectTimer));
    const onAbort = () => tearDown(abortedError());
    signal?.addEventListener('abort', onAbort, { once: true });
    req.once('close', () => signal?.removeEventListener('abort', onAbort));

    return new Promise<AnsweredExchange>((resolve, reject) => {
      req.once('response', (res) => {
        exchange.res = res;
        resolve(exchange as AnsweredExchange);
      });
      req.on('error', (error) => reject(exchange.failure ?? asFetchError(error, url)));
      req.end(body);
    });
  }

  /** Applies the size cap to the declared length and to the streamed body. */
  private finalResponse(exchange: AnsweredExchange, url: URL, options: FetchOptions): FetchResponse {
    const { req, res } = exchange;
    const maxBytes = options.maxBytes ?? MAX_FILE_BYTES;
    const declared = Number(res.headers['content-length']);
    if (declared > maxBytes) {
      req.destroy();
      throw new FetchError('too_large', `${forMessages(url.href)} declares ${declared} bytes, over the limit of ${maxBytes}`);
    }
    let received = 0;
    const body = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        if (received > maxBytes) callback(new FetchError('too_large', `${forMessages(url.href)} sent more than the limit of ${maxBytes} bytes`));
        else callback(null, chunk);
      },
    });
    const broken = () => exchange.failure ?? new FetchError('network', `The connection to ${url.host} broke before the body was complete`);
    res.on('error', () => body.destroy(broken()));
    res.once('close', () => {
      if (!res.complete) body.destroy(broken());
    });
    // A reader that stops early, or a cap that trips, releases the connection.
    body.once('close', () => {
      if (!res.complete) req.destroy();
    });
    // The error stays on the stream for whoever reads it; a caller still busy elsewhere when the
    // cap trips must not crash the process with an unhandled 'error' event.
    body.on('error', () => undefined);
    res.pipe(body);
    return { status: res.statusCode ?? 0, headers: res.headers, finalUrl: url.href, body };
  }

  /** `lookup` for node:http: resolves every address of the host and refuses the host if any is forbidden. */
  private readonly lookup = ((hostname: string, options: { all?: boolean; family?: number | string }, callback: (...args: unknown[]) => void) => {
    this.resolveAllowed(hostname, options.family).then(
      (addresses) => (options.all ? callback(null, addresses) : callback(null, addresses[0].address, addresses[0].family)),
      (error) => callback(error),
    );
  }) as unknown as LookupFunction;

  private async resolveAllowed(hostname: string, family: number | string | undefined) {
    let addresses: { address: string; family: number }[];
    try {
      addresses = await this.resolve(hostname);
    } catch (error) {
      throw new FetchError('dns_failure', `Could not resolve ${hostname} (${error.code ?? error.message})`);
    }
    for (const { address } of addresses) this.assertAllowed(address, hostname);
    const wanted = family === 4 || family === 'IPv4' ? 4 : family === 6 || family === 'IPv6' ? 6 : 0;
    const usable = wanted ? addresses.filter((a) => a.family === wanted) : addresses;
    if (usable.length === 0) throw new FetchError('dns_failure', `${hostname} has no address`);
    return usable;
  }

  private assertAllowed(address: string, host: string): void {
    const range = this.policy.forbiddenRange(address);
    if (range) throw forbiddenAddress(host, address, range);
  }
}

export function parseFetchUrl(raw: string): URL {
  // The same rule as every URL field of the API (composition/src/schema/url-rule.ts).
  const problem = httpUrlProblem(raw);
  if (problem) throw new FetchError('invalid_url', problem);
  return new URL(raw);
}

function forbiddenAddress(host: string, address: string, range: ForbiddenRange): FetchError {
  const where = host === address ? address : `${host} (${address})`;
  return new FetchError('forbidden_address', `${where} is a ${range.kind} address (${range.range}); only public addresses are fetched`);
}

function abortedError(): FetchError {
  return new FetchError('aborted', 'The fetch was cancelled');
}

function asFetchError(error: NodeJS.ErrnoException, url: URL): FetchError {
  if (error instanceof FetchError) return error;
  return new FetchError('network', `Could not fetch from ${url.host}: ${error.code ?? error.message}`);
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/**
 * A URL as error messages (and so logs, job errors and delivery records) show it: without its
 * query or credentials, which may hold signatures or tokens (signed S3/GCS URLs, webhook secrets).
 */
function forMessages(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}
