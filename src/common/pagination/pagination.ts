import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { ApiError } from '../errors/api-error';
import { OptionalQueryInt } from '../validation/optional-fields';

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}

/** Rows a list returns: `limit` bounds and its default, the same on every list route. */
export const PAGE_LIMIT = { default: 20, min: 1, max: 200 } as const;

/**
 * Cursors are opaque: base64url of the last row's sort key, its id's ULID as 16 bytes. Ids sort by
 * creation time, so "newest first" is ORDER BY id DESC and the cursor a strict upper bound. Every
 * 22-character string of the pattern is a cursor (any 128 bits are a ULID), so the document can
 * say exactly which cursors the service takes.
 */
export const CURSOR_PATTERN = /^[A-Za-z0-9_-]{21}[AQgw]$/;
const CURSOR_DESCRIPTION =
  'Where the page starts: the `next_cursor` of the previous page of the same list, passed back unchanged (22 base64url characters). Omitted: the first page.';

export class PageQueryDto {
  @OptionalQueryInt(PAGE_LIMIT.min, PAGE_LIMIT.max, { default: PAGE_LIMIT.default })
  limit?: number;

  @ApiPropertyOptional({ description: CURSOR_DESCRIPTION })
  @IsOptional()
  @IsString()
  @Matches(CURSOR_PATTERN, { message: 'cursor must be a next_cursor of this list, passed back unchanged' })
  cursor?: string;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function encodeCursor(lastId: string): string {
  const ulid = lastId.slice(lastId.indexOf('_') + 1).toUpperCase();
  let value = 0n;
  for (const char of ulid) value = value * 32n + BigInt(Math.max(0, CROCKFORD.indexOf(char)));
  return Buffer.from(value.toString(16).padStart(32, '0'), 'hex').toString('base64url');
}

export function decodeCursor(cursor: string | undefined, idPrefix: string): string | undefined {
  if (cursor === undefined) return undefined;
  if (!CURSOR_PATTERN.test(cursor)) {
    throw ApiError.validation([
      { type: 'string_pattern_mismatch', loc: ['query', 'cursor'], msg: 'Invalid cursor; pass back next_cursor unchanged', pointer: '/cursor' },
    ]);
  }
  let value = BigInt(`0x${Buffer.from(cursor, 'base64url').toString('hex')}`);
  let ulid = '';
  for (let i = 0; i < 26; i++) {
    ulid = CROCKFORD[Number(value % 32n)] + ulid;
    value /= 32n;
  }
  return `${idPrefix}_${ulid}`;
}

/**
 * A page holds at most this many bytes of JSON (and always at least one item): rows carry caller
 * metadata and task results, so a row count alone does not bound a response.
 */
export const PAGE_MAX_BYTES = 1024 * 1024;

/** Builds a page from rows fetched with `limit + 1`, cut short where it would pass PAGE_MAX_BYTES. */
export function toPage<R extends { id: string }, T>(rows: R[], limit: number, map: (row: R) => T): Page<T> {
  const pageRows = rows.slice(0, limit);
  return boundedPage(pageRows, pageRows.map(map), rows.length > limit);
}

export async function toPageAsync<R extends { id: string }, T>(rows: R[], limit: number, map: (row: R) => Promise<T>): Promise<Page<T>> {
  const pageRows = rows.slice(0, limit);
  return boundedPage(pageRows, await Promise.all(pageRows.map(map)), rows.length > limit);
}

function boundedPage<R extends { id: string }, T>(rows: R[], items: T[], moreRows: boolean): Page<T> {
  let bytes = 0;
  let count = 0;
  for (const item of items) {
    const size = Buffer.byteLength(JSON.stringify(item), 'utf8');
    if (count > 0 && bytes + size > PAGE_MAX_BYTES) break;
    bytes += size;
    count += 1;
  }
  const hasMore = moreRows || count < items.length;
  return {
    data: items.slice(0, count),
    next_cursor: hasMore && count > 0 ? encodeCursor(rows[count - 1].id) : null,
    has_more: hasMore,
  };
}
