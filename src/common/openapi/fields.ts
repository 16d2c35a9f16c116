import { ApiProperty } from '@nestjs/swagger';
import type { ApiPropertyOptions } from '@nestjs/swagger';

/**
 * The field shapes that recur across the response DTOs, one decorator each, so a DTO reads as its
 * fields' roles. Each writes the same `ApiProperty` options, in the same order, as the stacks they
 * replace: the OpenAPI document does not change.
 */

/** The example ULID of every resource id in the document. */
const EXAMPLE_ULID = '01JD8Z3N5Q7W9X2Y4A6B8C0D1E';

/** A resource id, `prefix_` then a ULID (e.g. `ApiId('ws')` for a workspace id). */
export function ApiId(prefix: string): PropertyDecorator {
  return ApiProperty({ example: `${prefix}_${EXAMPLE_ULID}` });
}

/** An instant, as an ISO 8601 string (e.g. `created_at`). */
export function ApiTimestamp(description?: string): PropertyDecorator {
  return ApiProperty({ format: 'date-time', ...(description === undefined ? {} : { description }) });
}

/** An instant that may not have come yet: null until then (e.g. `completed_at`, `revoked_at`). */
export function ApiTimestampOrNull(description?: string): PropertyDecorator {
  return ApiProperty({ type: 'string', format: 'date-time', nullable: true, ...(description === undefined ? {} : { description }) });
}

/** A scalar that may be null (e.g. a size not known for every asset). */
export function ApiNullable(type: 'string' | 'integer' | 'number', options: Omit<ApiPropertyOptions, 'type' | 'nullable'> = {}): PropertyDecorator {
  return ApiProperty({ type, nullable: true, ...options } as ApiPropertyOptions);
}

/** A whole number (`type: integer`; a TypeScript `number` alone documents any number). */
export function ApiInteger(options: Omit<ApiPropertyOptions, 'type'> = {}): PropertyDecorator {
  return ApiProperty({ type: 'integer', ...options } as ApiPropertyOptions);
}
