import { z } from 'zod';
import { ELEMENT_SCHEMAS } from './elements';
import { previewSchema } from './preview';
import { renderRequestSchema } from './request';
import { UNSUPPORTED_ELEMENT_FIELDS, UNSUPPORTED_REQUEST_FIELDS } from './unsupported';
import { ELEMENT_TYPES, type ElementType } from './vocabulary';

/**
 * JSON Schemas (draft 2020-12) of what clients send, generated from the zod schema. Properties
 * the renderer does not draw yet carry `"x-supported": false`.
 */

type JsonSchema = { [key: string]: unknown };

export function elementJsonSchemas(): Record<ElementType, object> {
  return Object.fromEntries(ELEMENT_TYPES.map((type) => [type, markUnsupported(toJsonSchema(ELEMENT_SCHEMAS[type]))])) as Record<ElementType, object>;
}

export function requestJsonSchema(): object {
  const schema = markUnsupported(toJsonSchema(renderRequestSchema));
  markProperties(schema, UNSUPPORTED_REQUEST_FIELDS);
  return schema;
}

/** The body of `POST /v1/preview`: a render request plus the required `preview` object. */
export function previewRequestJsonSchema(): object {
  const schema = requestJsonSchema() as JsonSchema;
  const { $schema: _dialect, ...preview } = toJsonSchema(previewSchema);
  (schema.properties as Record<string, JsonSchema>).preview = preview;
  schema.required = [...((schema.required as string[] | undefined) ?? []), 'preview'];
  return schema;
}

function toJsonSchema(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
}

/** Marks unsupported properties on every element object schema found in `schema`. */
function markUnsupported(schema: JsonSchema): JsonSchema {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    const record = node as JsonSchema;
    const tag = ((record.properties as JsonSchema | undefined)?.type as JsonSchema | undefined)?.const;
    if (typeof tag === 'string' && tag in UNSUPPORTED_ELEMENT_FIELDS) markProperties(record, UNSUPPORTED_ELEMENT_FIELDS[tag as ElementType]);
    Object.values(record).forEach(visit);
  };
  visit(schema);
  return schema;
}

function markProperties(schema: JsonSchema, fields: readonly string[]): void {
  const properties = schema.properties as Record<string, JsonSchema>;
  for (const field of fields) properties[field] = { ...properties[field], 'x-supported': false };
}
