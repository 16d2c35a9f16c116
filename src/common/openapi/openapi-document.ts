import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { previewRequestJsonSchema, requestJsonSchema } from '../../../composition/src/schema';
import { SERVICE_VERSION } from '../../system/build-info';
import { API_KEY_SCHEME } from './api-docs.decorators';

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
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'API key (sk_…)', description: 'An API key of the workspace: `Authorization: Bearer sk_…`' }, API_KEY_SCHEME)
      .build(),
  );
  const schemas = (document.components ??= {}).schemas ?? {};
  for (const [name, build] of Object.entries(COMPOSITION_SCHEMAS)) {
    const { $schema: _dialect, ...schema } = build() as Record<string, unknown>;
    schemas[name] = schema;
  }
  document.components.schemas = schemas;
  return withoutDtoSuffix(document);
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
