import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { ApiError } from '../errors/api-error';

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}

/** Rows a list returns: `limit` bounds and its default, the same on every list route. */
export const PAGE_LIMIT = { default: 20, min: 1, max: 200 } as const;

export class PageQueryDto {
  @ApiPropertyOptional({ minimum: PAGE_LIMIT.min, maximum: PAGE_LIMIT.max, default: PAGE_LIMIT.default })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(PAGE_LIMIT.min)
  @Max(PAGE_LIMIT.max)
  limit?: number;

  @ApiPropertyOptional({ description: 'next_cursor from the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}

/**
 * Cursors are opaque: base64url of the last row's id. Ids are ULID-based and so sort by creation
 * time, which makes "newest first" an ORDER BY id DESC and the cursor a strict upper bound.
 */
export function encodeCursor(lastId: string): string {
  return Buffer.from(lastId, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string | undefined, idPrefix: string): string | undefined {
  if (cursor === undefined) return undefined;
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!decoded.startsWith(`${idPrefix}_`) || !/^[A-Za-z0-9_]+$/.test(decoded)) {
    throw ApiError.validation([
      { type: 'value_error', loc: ['query', 'cursor'], msg: 'Invalid cursor; pass back next_cursor unchanged', pointer: '/cursor' },
    ]);
  }
  return decoded;
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
