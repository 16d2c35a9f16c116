import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import * as path from 'node:path';
import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/** One response as the server sent it. */
export interface ObservedResponse {
  method: string;
  /** Path with or without a query string. */
  url: string;
  status: number;
  contentType?: string;
  /** The raw body text when it was JSON; undefined when there was none or it was not captured. */
  body?: string;
}

export interface ContractMismatch {
  operation: string;
  status: number;
  problem: string;
}

type Json = Record<string, unknown>;
interface OperationRef {
  template: string;
  method: string;
  operation: Json;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/**
 * What the document deliberately does not describe, so the contract check leaves it alone:
 * the playground's static assets, the Swagger UI under /docs (and the document it serves itself),
 * the signed /v1/files URLs (capability links outside the API-key surface), and /mcp, which the
 * document excludes by design (it speaks JSON-RPC, described by the MCP protocol).
 */
export function isOutsideTheDocument(urlPath: string): boolean {
  return (
    urlPath === '/playground' ||
    urlPath.startsWith('/playground/') ||
    urlPath === '/docs' ||
    urlPath.startsWith('/docs/') ||
    urlPath.startsWith('/docs-') ||
    urlPath === '/v1/openapi.json' ||
    urlPath === '/v1/openapi.yaml' ||
    urlPath.startsWith('/v1/files/') ||
    urlPath === '/mcp' ||
    urlPath.startsWith('/mcp/')
  );
}

/** Validates observed responses against an OpenAPI 3.1 document (JSON Schema 2020-12 dialect). */
export class OpenApiContract {
  private readonly ajv: Ajv2020;
  private readonly operations: OperationRef[] = [];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    // `binary` only marks file bodies, which are never validated as JSON.
    this.ajv.addFormat('binary', true);
    // The whole document is one schema resource, so every '#/components/schemas/…' resolves in it.
    this.ajv.addSchema(document, 'openapi.json');
    const paths = (document.paths ?? {}) as Record<string, Json>;
    for (const [template, item] of Object.entries(paths)) {
      for (const method of HTTP_METHODS) {
        const operation = item[method] as Json | undefined;
        if (operation) this.operations.push({ template, method, operation });
      }
    }
  }

  static fromCommittedDocument(): OpenApiContract {
    const file = path.join(__dirname, '..', '..', 'openapi', 'openapi.json');
    return new OpenApiContract(JSON.parse(readFileSync(file, 'utf8')) as Json);
  }

  /** The operation for a method and concrete path; literal segments win over templated ones. */
  findOperation(method: string, urlPath: string): OperationRef | undefined {
    const segments = urlPath.split('/');
    let best: { ref: OperationRef; literals: number } | undefined;
    for (const ref of this.operations) {
      if (ref.method !== method.toLowerCase()) continue;
      const parts = ref.template.split('/');
      if (parts.length !== segments.length) continue;
      let literals = 0;
      const matches = parts.every((part, i) => {
        if (/^\{[^}]+\}$/.test(part)) return segments[i].length > 0;
        literals += 1;
        return part === segments[i];
      });
      if (matches && (!best || literals > best.literals)) best = { ref, literals };
    }
    return best?.ref;
  }

  /** Every way the response departs from the document; empty when it matches or is not the API's. */
  check(response: ObservedResponse, options: ObserveOptions = {}): ContractMismatch[] {
    const urlPath = response.url.split('?')[0];
    const method = response.method.toUpperCase();
    const name = `${method} ${urlPath}`;
    if (isOutsideTheDocument(urlPath) || method === 'HEAD' || method === 'OPTIONS') return [];
    const ref = this.findOperation(method, urlPath);
    // Paths the document has no operation for answer 404/405 through the global filter; there is
    // no operation to hold them to.
    if (!ref) return [];
    if (options.servesApi === false && response.status === 404) return [];
    const operation = `${method} ${ref.template}`;
    const fail = (problem: string): ContractMismatch[] => [{ operation: operation === name ? name : `${operation} (${name})`, status: response.status, problem }];

    const responses = (ref.operation.responses ?? {}) as Record<string, Json>;
    const statusKey = [String(response.status), `${String(response.status)[0]}XX`, 'default'].find((k) => k in responses);
    if (!statusKey) return fail(`status ${response.status} is not documented (documented: ${Object.keys(responses).join(', ')})`);
    const documented = responses[statusKey];
    const content = (documented.content ?? {}) as Record<string, Json>;
    const mediaTypes = Object.keys(content);
    const hasBody = response.body !== undefined && response.body.length > 0;
    const contentType = response.contentType?.split(';')[0].trim().toLowerCase();
    if (mediaTypes.length === 0) {
      if (hasBody) return fail(`status ${statusKey} documents no body, but a ${contentType ?? 'untyped'} body was sent`);
      return [];
    }
    if (!contentType) {
      if (response.status === 204 || response.status === 304) return [];
      return fail(`no Content-Type; documented: ${mediaTypes.join(', ')}`);
    }
    const mediaType = mediaTypes.find((m) => mediaTypeMatches(m, contentType));
    if (!mediaType) return fail(`Content-Type ${contentType} is not documented (documented: ${mediaTypes.join(', ')})`);
    if (!isJson(contentType) || !hasBody || !content[mediaType].schema) return [];

    let body: unknown;
    try {
      body = JSON.parse(response.body!);
    } catch {
      return fail('body is not valid JSON');
    }
    const pointer = ['#', 'paths', ref.template, ref.method, 'responses', statusKey, 'content', mediaType, 'schema']
      .map((part, i) => (i === 0 ? part : encodePointer(part)))
      .join('/');
    const validate = this.validator(pointer);
    if (validate(body)) return [];
    const errors = (validate.errors ?? [])
      .slice(0, 8)
      .map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
    return fail(`body does not match the schema: ${errors.join('; ')}; body: ${response.body!.slice(0, 400)}`);
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi.json${pointer}` });
      this.validators.set(pointer, validate);
    }
    return validate;
  }
}

function encodePointer(part: string): string {
  return encodeURIComponent(part.replace(/~/g, '~0').replace(/\//g, '~1'));
}

function mediaTypeMatches(documented: string, actual: string): boolean {
  const [type, subtype] = documented.toLowerCase().split('/');
  const [actualType, actualSubtype] = actual.split('/');
  return (type === '*' || type === actualType) && (subtype === '*' || subtype === actualSubtype);
}

function isJson(contentType: string): boolean {
  return contentType === 'application/json' || contentType.endsWith('+json');
}

export interface ObserveOptions {
  /**
   * False for a worker-role process: the document describes the API, and a worker mounts only
   * the system routes, so its 404 for an API route is the role, not a contract break.
   */
  servesApi?: boolean;
}

let contract: OpenApiContract | undefined;
const mismatches: ContractMismatch[] = [];

/** Mismatches recorded in this test file so far (checked by test/setup/contract-check.ts). */
export function recordedMismatches(): readonly ContractMismatch[] {
  return mismatches;
}

/**
 * Watches every response the server writes: JSON bodies are kept (other bodies, such as video
 * downloads and event streams, are only checked for status and type) and checked against the
 * committed document when the response finishes. It listens on the Node server, in front of
 * Express, so the application itself carries no test code.
 */
export function observeResponses(server: Server, options: ObserveOptions = {}): void {
  contract ??= OpenApiContract.fromCommittedDocument();
  const checker = contract;
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    // Read now: Express rewrites req.url inside mounted routers.
    const url = req.url ?? '/';
    const method = req.method ?? 'GET';
    const chunks: Buffer[] = [];
    let capture: boolean | undefined;
    const keep = (chunk: unknown, encoding?: unknown) => {
      if (capture === undefined) capture = isJson(String(res.getHeader('content-type') ?? '').split(';')[0].trim().toLowerCase());
      if (!capture || chunk === undefined || chunk === null || typeof chunk === 'function') return;
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
    };
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    (res as { write: unknown }).write = (...args: unknown[]) => {
      keep(args[0], args[1]);
      return write(...args);
    };
    (res as { end: unknown }).end = (...args: unknown[]) => {
      keep(args[0], args[1]);
      return end(...args);
    };
    res.once('finish', () => {
      const contentType = res.getHeader('content-type');
      const found = checker.check({
        method,
        url,
        status: res.statusCode,
        contentType: contentType === undefined ? undefined : String(contentType),
        body: capture ? Buffer.concat(chunks).toString('utf8') : undefined,
      }, options);
      mismatches.push(...found);
    });
  });
}
