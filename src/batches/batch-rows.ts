import type { IncomingMessage } from 'node:http';
import { CsvError, parse } from 'csv-parse/sync';
import { findPlaceholders, type Variables } from '../../composition/src/schema';
import { ApiError, ValidationErrorItem } from '../common/errors/api-error';
import { parseVariables } from '../projects/project-template';

export const BATCH_LIMITS = {
  rows: 1000,
  /** A CSV body; a thousand rows of a few dozen short columns fit well below it. */
  csv_bytes: 5 * 1024 * 1024,
} as const;

/** One row of a batch: its variables, and where it was written (its CSV line, the column names). */
export interface BatchRow {
  index: number;
  variables: Variables;
  /** CSV only: the line the record ends on, and its columns in order. */
  csv?: { line: number; columns: string[] };
}

/** `POST /v1/projects/{id}/batches` with a CSV body: the only route that takes a body other than JSON. */
export function isCsvBatchUpload(req: IncomingMessage): boolean {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  return type === 'text/csv' && req.method === 'POST' && /^\/v1\/projects\/[^/]+\/batches\/?(\?|$)/.test(req.url ?? '');
}

/** Reads a CSV body up to BATCH_LIMITS.csv_bytes (413 past it). */
export async function readCsvBody(req: IncomingMessage): Promise<Buffer> {
  const tooLarge = () => new ApiError('payload_too_large', `A CSV batch may be at most ${BATCH_LIMITS.csv_bytes / 1024 / 1024} MB`);
  if (Number(req.headers['content-length'] ?? 0) > BATCH_LIMITS.csv_bytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BATCH_LIMITS.csv_bytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The `rows` of a JSON batch: objects of variable name → string, 1 to BATCH_LIMITS.rows of them. */
export function rowsFromJson(input: unknown): BatchRow[] {
  if (!Array.isArray(input) || input.length === 0) {
    throw ApiError.validation([{ type: 'missing', loc: ['body', 'rows'], msg: 'rows should be a non-empty array of objects (variable name → string)', pointer: '/rows' }]);
  }
  assertRowCount(input.length, '/rows');
  const errors: ValidationErrorItem[] = [];
  const rows = input.map((row: unknown, index) => {
    try {
      return { index, variables: parseVariables(row, 'row') };
    } catch (error) {
      errors.push(...atRow(error, index));
      return { index, variables: {} };
    }
  });
  if (errors.length > 0) throw ApiError.validation(errors);
  return rows;
}

/**
 * The rows of a CSV body: UTF-8 (with or without a BOM), a header row of variable names, quoted
 * fields and CRLF line ends as RFC 4180 writes them. A problem names its line and column.
 */
export function rowsFromCsv(bytes: Buffer): BatchRow[] {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw ApiError.validation([{ type: 'csv_encoding', loc: ['body'], msg: `The CSV is not valid UTF-8 (${invalidUtf8Place(bytes)}); save it as UTF-8`, pointer: '' }]);
  }
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, { info: true, skip_empty_lines: true, bom: true }) as unknown as typeof records;
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    const line = (error as CsvError & { lines?: number }).lines;
    throw ApiError.validation([{ type: 'csv_syntax', loc: ['body', 'line', line ?? 0], msg: `CSV line ${line ?? '?'}: ${error.message}`, pointer: '' }]);
  }
  if (records.length < 2) {
    throw ApiError.validation([{ type: 'missing', loc: ['body'], msg: 'The CSV needs a header row of variable names and at least one row', pointer: '/rows' }]);
  }
  const columns = records[0].record;
  assertRowCount(records.length - 1, '/rows');
  const headerErrors = columns.flatMap((name, column) =>
    !name.trim()
      ? [csvError(0, 1, column, name, 'missing', 'has no name in the header row')]
      : columns.indexOf(name) !== column
        ? [csvError(0, 1, column, name, 'value_error', 'appears twice in the header row')]
        : [],
  );
  if (headerErrors.length > 0) throw ApiError.validation(headerErrors);
  const errors: ValidationErrorItem[] = [];
  const rows = records.slice(1).map(({ record, info }, index) => {
    const variables = Object.fromEntries(columns.map((name, column) => [name, record[column]]));
    try {
      return { index, variables: parseVariables(variables, 'row'), csv: { line: info.lines, columns } };
    } catch (error) {
      for (const item of atRow(error, index)) {
        const name = item.pointer.split('/')[3];
        errors.push(csvError(index, info.lines, columns.indexOf(name), name, item.type, item.msg));
      }
      return { index, variables: {}, csv: { line: info.lines, columns } };
    }
  });
  if (errors.length > 0) throw ApiError.validation(errors);
  return rows;
}

/**
 * Every row names only the project's variables and gives a value to each one without a default:
 * an extra column or a missing variable is a 422 at the row (CSV: the header's column).
 */
export function checkRowVariables(rows: BatchRow[], template: unknown, defaults: Variables): void {
  const known = new Set(findPlaceholders(template).map((p) => p.name).filter((name) => !name.startsWith('brand.')));
  const listed = [...known].join(', ') || 'none';
  const required = [...known].filter((name) => !(name in defaults));
  const errors: ValidationErrorItem[] = [];
  for (const row of rows) {
    for (const name of Object.keys(row.variables).filter((n) => !known.has(n))) {
      const msg = `"${name}" is not a variable of the project (its variables: ${listed})`;
      errors.push(row.csv ? csvError(row.index, 1, row.csv.columns.indexOf(name), name, 'extra_forbidden', msg) : rowError(row.index, name, 'extra_forbidden', msg));
    }
    for (const name of required.filter((n) => !(n in row.variables))) {
      const msg = `Variable {{${name}}} has no value: the project has no default for it`;
      errors.push(row.csv ? csvError(row.index, 1, -1, name, 'missing', `${msg}; add a "${name}" column`) : rowError(row.index, name, 'missing', msg));
    }
    // A CSV's header problems are the same on every row: report them once.
    if (row.csv && errors.length > 0) break;
  }
  if (errors.length > 0) throw ApiError.validation(errors);
}

export function rowError(index: number, name: string | null, type: string, msg: string): ValidationErrorItem {
  return { type, loc: ['body', 'rows', index, ...(name ? [name] : [])], msg: `Row ${index + 1}: ${msg}`, pointer: `/rows/${index}${name ? `/${escapePointer(name)}` : ''}` };
}

/** A CSV problem: `line` as an editor counts (the header is line 1), `column` from 1 (0 when the column is absent). */
function csvError(index: number, line: number, column: number, name: string, type: string, msg: string): ValidationErrorItem {
  const where = column >= 0 ? `column ${column + 1} ("${name}")` : `column "${name}"`;
  return { type, loc: ['body', 'line', line, 'column', column + 1], msg: `CSV line ${line}, ${where}: ${msg}`, pointer: `/rows/${index}/${escapePointer(name)}` };
}

function atRow(error: unknown, index: number): ValidationErrorItem[] {
  if (!(error instanceof ApiError)) throw error;
  const items = (error.details?.errors ?? []) as ValidationErrorItem[];
  return items.map((item) => ({
    ...item,
    loc: ['body', 'rows', index, ...item.loc.slice(2)],
    pointer: item.pointer.replace(/^\/row/, `/rows/${index}`),
  }));
}

function assertRowCount(count: number, pointer: string): void {
  if (count > BATCH_LIMITS.rows) {
    throw ApiError.validation([{ type: 'too_long', loc: ['body', 'rows'], msg: `A batch has at most ${BATCH_LIMITS.rows} rows; this one has ${count}. Split it`, pointer }]);
  }
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** "line L, byte B" of the first byte that is not UTF-8, for the 422. */
function invalidUtf8Place(bytes: Buffer): string {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let line = 1;
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 0x0a) {
      try {
        decoder.decode(bytes.subarray(start, i));
      } catch {
        return `line ${line}`;
      }
      line += 1;
      start = i + 1;
    }
  }
  return 'near the end';
}
