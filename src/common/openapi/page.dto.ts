import { Type } from '@nestjs/common';
import { ApiProperty, ApiSchema } from '@nestjs/swagger';

/** The response DTO of a list route: `{data, next_cursor, has_more}` of `item` (common/pagination). */
export function PageDto(item: Type<unknown>, name: string): Type<unknown> {
  @ApiSchema({ name })
  class Page {
    @ApiProperty({ type: [item] })
    data: unknown[];

    @ApiProperty({ type: 'string', nullable: true, description: 'Pass as `cursor` for the next page; null on the last page' })
    next_cursor: string | null;

    @ApiProperty({ description: 'Whether another page follows' })
    has_more: boolean;
  }
  return Page;
}
