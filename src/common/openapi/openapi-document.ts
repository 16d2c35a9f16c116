import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { previewRequestJsonSchema, requestJsonSchema } from '../../../composition/src/schema';
import { SERVICE_VERSION } from '../build-info';
import { ADMIN_KEY_SCHEME, API_KEY_SCHEME, METRICS_TOKEN_SCHEME, RATE_LIMIT_EXTENSION, RATE_LIMIT_HEADERS } from './api-docs.decorators';
import { documentValidationRules } from './validation-rules';

/**
 * Schemas that come from the composition's zod schema (its JSON Schema), registered once under
 * components and referred to by `$ref`, so the document never holds a hand-written copy.
 */
const COMPOSITION_SCHEMAS: Record<string, () => object> = {
  RenderRequest: requestJsonSchema,
  PreviewRequest: previewRequestJsonSchema,
};

export const schemaRef = (name: keyof typeof COMPOSITION_SCHEMAS) => ({ $ref: `#/components/schemas/${name}` });

/**
 * The OpenAPI document, built from the controllers' decorators. The same function serves
 * /v1/openapi.json and writes the committed openapi/openapi.json (scripts/write-openapi.js), so
 * the linter, the typed client and the contract test read exactly what the service serves.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Video rendering and AI task service')
      .setDescription('Declarative video rendering, AI tasks, uploads, webhooks. Errors use {error: {code, message, details}}.')
      .setVersion(SERVICE_VERSION)
      // 3.1: schemas are JSON Schema 2020-12, the dialect of the composition's schema, used as is.
      .setOpenAPIVersion('3.1.0')
      // Relative: each installation serves its own document, so the server is wherever it was fetched from.
      .addServer('/', 'This installation')
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'API key (sk_…)', description: 'An API key of the workspace: `Authorization: Bearer sk_…`' }, API_KEY_SCHEME)
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'METRICS_TOKEN', description: 'The operator\'s METRICS_TOKEN (GET /metrics only)' }, METRICS_TOKEN_SCHEME)
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'ADMIN_API_KEY', description: "The operator's ADMIN_API_KEY (/v1/admin/ only; without it set those routes are 404)" }, ADMIN_KEY_SCHEME)
      .addTag('admin', "The operator's API: every workspace, plans, suspension (ADMIN_API_KEY; docs/operations.md)")
      .build(),
  );
  document.info.license = licence();
  const schemas = (document.components ??= {}).schemas ?? {};
  for (const [name, build] of Object.entries(COMPOSITION_SCHEMAS)) {
    const { $schema: _dialect, ...schema } = build() as Record<string, unknown>;
    schemas[name] = schema;
  }
  document.components.schemas = schemas;
  addRateLimitHeaders(document);
  addInputErrors(document);
  addOutageErrors(document);
  withNullAsType(document);
  documentValidationRules(app, document);
  return withoutDtoSuffix(document);
}

/**
 * The service's licence as its package.json states it (from sources or from dist/); an SPDX
 * expression is also given as the `identifier` OpenAPI 3.1 knows.
 */
function licence(): { name: string; identifier?: string } {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const { license } = JSON.parse(readFileSync(file, 'utf8')) as { license?: string };
    if (license && license !== 'UNLICENSED') return { name: license, identifier: license };
    break;
  }
  // SPDX has no id for "no licence"; a LicenseRef- is how SPDX names one of its own.
  return { name: 'UNLICENSED: all rights reserved', identifier: 'LicenseRef-UNLICENSED' };
}

/**
 * Schema names are what API users see (and the typed client's type names): `CreateWebhook`, not
 * the class name `CreateWebhookDto`. Renames every `…Dto` schema and each `$ref` to it.
 */
function withoutDtoSuffix(document: OpenAPIObject): OpenAPIObject {
  const rename = (name: string) => (name.endsWith('Dto') ? name.slice(0, -3) : name);
  const schemas = document.components!.schemas!;
  document.components!.schemas = Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [rename(name), schema]));
  const prefix = '#/components/schemas/';
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (typeof record.$ref === 'string' && record.$ref.startsWith(prefix)) record.$ref = prefix + rename(record.$ref.slice(prefix.length));
    Object.values(record).forEach(visit);
  };
  visit(document);
  return document;
}

/**
 * The guard sets RateLimit-Limit/-Remaining/-Reset on every answer of a route limited per client
 * address or email; a per-workspace limit is counted by the service and shows only on its 429.
 */
function addRateLimitHeaders(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths)) {
    for (const operation of [item.get, item.put, item.post, item.delete, item.patch]) {
      const limits = (operation as Record<string, unknown> | undefined)?.[RATE_LIMIT_EXTENSION] as { per: string }[] | undefined;
      if (!operation || !limits?.some((l) => l.per !== 'workspace')) continue;
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!/^2\d\d$/.test(status) || !response || !('description' in response)) continue;
        response.headers = { ...RATE_LIMIT_HEADERS, ...response.headers };
      }
    }
  }
}

/**
 * Every route answers 422 to a path or query the input guard refuses (NUL, lone surrogates,
 * prototype keys; bootstrap.ts), whatever its own validation. Operations that name no security
 * scheme are public and say so with an empty requirement list.
 */
function addInputErrors(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths)) {
    for (const operation of [item.get, item.put, item.post, item.delete, item.patch]) {
      if (!operation) continue;
      // Routes without an API key (@Public) say so: no security requirement at all.
      operation.security ??= [];
      if (operation.responses['422']) continue;
      operation.responses['422'] = {
        description: 'Invalid request; `details.errors` lists each problem',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
      };
    }
  }
}

/**
 * Any route can meet an outage of what the service runs on: a stalled database (`unavailable`),
 * a full disk (`storage_full`) or a storage driver that refuses or does not answer
 * (`storage_unavailable`) is a 503 with Retry-After, never a hang or a 500.
 */
function addOutageErrors(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths)) {
    for (const operation of [item.get, item.put, item.post, item.delete, item.patch]) {
      if (!operation || operation.responses['503']) continue;
      operation.responses['503'] = {
        description:
          'The database is not answering (`unavailable`), storage is full (`storage_full`), or storage is misconfigured or not answering (`storage_unavailable`); retry after `Retry-After` seconds',
        headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } } },
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
      };
    }
  }
}

/**
 * @nestjs/swagger writes OpenAPI 3.0's `nullable: true`; 3.1 says the same with the `null` type:
 * `type: [T, 'null']`, or `anyOf: [schema, {type: 'null'}]` around a `$ref`/`allOf`.
 */
function withNullAsType(document: OpenAPIObject): void {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    Object.values(record).forEach(visit);
    if (record.nullable !== true) return;
    delete record.nullable;
    if (typeof record.type === 'string') {
      record.type = [record.type, 'null'];
      if (Array.isArray(record.enum)) record.enum = [...(record.enum as unknown[]), null];
      return;
    }
    const inner: Record<string, unknown> = {};
    for (const key of ['$ref', 'allOf', 'oneOf', 'anyOf']) {
      if (key in record) {
        inner[key] = record[key];
        delete record[key];
      }
    }
    record.anyOf = [inner, { type: 'null' }];
  };
  visit(document.components?.schemas);
  visit(document.paths);
}
