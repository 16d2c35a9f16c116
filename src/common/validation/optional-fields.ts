import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import type { ApiPropertyOptions } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, Max, Min } from 'class-validator';

// Each registers its rules in the order the stacked decorators did (the lowest first), so a value
// that breaks several rules is reported with its messages in the same order, and the document is unchanged.

/** An optional true/false field of a body. */
export function OptionalFlag(doc: ApiPropertyOptions = {}): PropertyDecorator {
  return applyDecorators(IsBoolean(), IsOptional(), ApiPropertyOptional(doc));
}

/** An optional whole number of a query string from `min` to `max` (sent as text, read as a number first). */
export function OptionalQueryInt(min: number, max: number, doc: ApiPropertyOptions = {}): PropertyDecorator {
  return applyDecorators(Max(max), Min(min), IsInt(), Type(() => Number), IsOptional(), ApiPropertyOptional({ minimum: min, maximum: max, ...doc } as ApiPropertyOptions));
}
