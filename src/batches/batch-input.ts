import { ApiError } from '../common/errors/api-error';
import { rowsFromCsv, rowsFromJson } from './batch-rows';
import type { BatchInput } from './batches.service';
import type { BatchCsvQueryDto } from './dto/batch.dto';

/** The JSON body's fields; any other is refused. */
const JSON_FIELDS = new Set(['rows', 'output_filename', 'metadata', 'webhook_url', 'reuse']);

/** A CSV body's rows with the options of its query. */
export function csvBatchInput(bytes: Buffer, query: BatchCsvQueryDto): BatchInput {
  const { reuse, ...options } = query;
  return { rows: rowsFromCsv(bytes), ...options, ...(reuse !== undefined ? { reuse: reuse === 'true' } : {}) };
}

/** The JSON body, checked field by field: an unknown field is a 422, never ignored. */
export function jsonBatchInput(body: unknown, query: BatchCsvQueryDto = {}): BatchInput {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw ApiError.validation([{ type: 'model_type', loc: ['body'], msg: 'The body should be a JSON object {rows, …} or a text/csv file', pointer: '' }]);
  }
  const fields = body as Record<string, unknown>;
  const problems = Object.keys(fields)
    .filter((key) => !JSON_FIELDS.has(key))
    .map((key) => ({ type: 'extra_forbidden', loc: ['body', key], msg: `Unknown field "${key}" (known: ${[...JSON_FIELDS].join(', ')})`, pointer: `/${key}` }));
  if (Object.keys(query).some((key) => query[key as keyof BatchCsvQueryDto] !== undefined)) {
    problems.push({ type: 'extra_forbidden', loc: ['query'], msg: 'Query options are for CSV bodies; put them in the JSON body', pointer: '' });
  }
  const { output_filename, metadata, webhook_url, reuse } = fields;
  if (reuse !== undefined && typeof reuse !== 'boolean') problems.push({ type: 'bool_type', loc: ['body', 'reuse'], msg: 'Input should be a boolean', pointer: '/reuse' });
  if (output_filename !== undefined && typeof output_filename !== 'string') problems.push({ type: 'string_type', loc: ['body', 'output_filename'], msg: 'Input should be a string', pointer: '/output_filename' });
  if (webhook_url !== undefined && typeof webhook_url !== 'string') problems.push({ type: 'string_type', loc: ['body', 'webhook_url'], msg: 'Input should be a string', pointer: '/webhook_url' });
  if (metadata !== undefined && (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata))) {
    problems.push({ type: 'dict_type', loc: ['body', 'metadata'], msg: 'Input should be an object', pointer: '/metadata' });
  }
  if (problems.length > 0) throw ApiError.validation(problems);
  return {
    rows: rowsFromJson(fields.rows),
    output_filename: output_filename as string | undefined,
    metadata: metadata as Record<string, unknown> | undefined,
    webhook_url: webhook_url as string | undefined,
    reuse: reuse as boolean | undefined,
  };
}
