import type { OpenAPIObject } from '@nestjs/swagger';

export type JsonSchema = Record<string, unknown>;

/** A REST operation of the OpenAPI document, e.g. `['post', '/v1/renders']`. */
export type OperationRef = readonly ['get' | 'post' | 'delete' | 'patch', string];

interface OperationObject {
  summary?: string;
  description?: string;
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: JsonSchema }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

export function findOperation(doc: OpenAPIObject, [method, path]: OperationRef): OperationObject {
  // Nest writes path parameters as {id}; the document is keyed the same way.
  const operation = (doc.paths[path] as Record<string, OperationObject> | undefined)?.[method];
  if (!operation) throw new Error(`No operation ${method.toUpperCase()} ${path} in the OpenAPI document`);
  return operation;
}

/**
 * The input schema of a tool that wraps a REST operation: its path and query parameters become
 * top-level arguments and its JSON body the `request` argument, all taken from the OpenAPI
 * document (itself built from the controllers, DTOs and the composition's zod schema). `$ref`s
 * into components are inlined and `$defs` hoisted, so the result stands alone.
 */
export function operationInputSchema(
  doc: OpenAPIObject,
  ref: OperationRef,
  extra: { properties?: Record<string, JsonSchema>; required?: string[]; omitQuery?: string[] } = {},
): JsonSchema {
  const operation = findOperation(doc, ref);
  const defs: Record<string, unknown> = {};
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in !== 'path' && parameter.in !== 'query') continue;
    if (extra.omitQuery?.includes(parameter.name)) continue;
    const schema = inline(doc, parameter.schema ?? { type: 'string' }, defs);
    properties[parameter.name] = parameter.description ? { ...schema, description: parameter.description } : schema;
    if (parameter.required || parameter.in === 'path') required.push(parameter.name);
  }
  const body = operation.requestBody?.content?.['application/json']?.schema;
  if (body) {
    properties.request = inline(doc, body, defs);
    required.push('request');
  }
  Object.assign(properties, extra.properties ?? {});
  required.push(...(extra.required ?? []));
  const schema: JsonSchema = { type: 'object', properties, additionalProperties: false };
  if (required.length) schema.required = required;
  if (Object.keys(defs).length) schema.$defs = defs;
  return schema;
}

/** The body schema of an operation, inlined (for tools that build the body themselves). */
export function operationBodySchema(doc: OpenAPIObject, ref: OperationRef): JsonSchema {
  const body = findOperation(doc, ref).requestBody?.content?.['application/json']?.schema;
  if (!body) throw new Error(`${ref[0].toUpperCase()} ${ref[1]} has no JSON body`);
  const defs: Record<string, unknown> = {};
  const schema = inline(doc, body, defs);
  return Object.keys(defs).length ? { ...schema, $defs: { ...((schema.$defs as object) ?? {}), ...defs } } : schema;
}

/** Copies `schema` with component `$ref`s replaced by their targets and nested `$defs` moved into `defs`. */
function inline(doc: OpenAPIObject, schema: JsonSchema, defs: Record<string, unknown>, seen: string[] = []): JsonSchema {
  const visit = (node: unknown, trail: string[]): unknown => {
    if (Array.isArray(node)) return node.map((item) => visit(item, trail));
    if (node === null || typeof node !== 'object') return node;
    const record = node as Record<string, unknown>;
    const ref = record.$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
      const name = ref.slice('#/components/schemas/'.length);
      if (trail.includes(name)) return {}; // a cycle: any value, the service validates it
      const target = doc.components?.schemas?.[name];
      return target ? visit(target, [...trail, name]) : {};
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(record)) {
      if (key === '$defs' && value && typeof value === 'object') {
        for (const [name, def] of Object.entries(value)) defs[name] = visit(def, trail);
        continue;
      }
      if (key === '$schema') continue;
      out[key] = visit(value, trail);
    }
    return out;
  };
  return visit(schema, seen) as JsonSchema;
}
