import { applyDecorators } from '@nestjs/common';
import { IsString, MaxLength, MinLength } from 'class-validator';

/** A non-empty string of at most `maxLength` characters: the text fields' rule group in one place. */
export function IsText(maxLength: number): PropertyDecorator {
  // Registered in the order the three stacked decorators were (the lowest first), so a value that
  // breaks several rules is reported with its messages in the same order.
  return applyDecorators(MaxLength(maxLength), MinLength(1), IsString());
}
