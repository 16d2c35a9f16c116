import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ERROR_STATUS } from '../errors/api-error';

/** One problem of a 422 `invalid_request` (Pydantic-style). */
@ApiSchema({ name: 'ValidationErrorItem' })
export class ValidationErrorItemDto {
  @ApiProperty({ example: 'missing' })
  type: string;

  @ApiProperty({ type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'integer' }] }, example: ['body', 'elements', 0, 'src'] })
  loc: (string | number)[];

  @ApiProperty({ example: 'Field required' })
  msg: string;

  @ApiProperty({ description: 'JSON Pointer into the request body', example: '/elements/0/src' })
  pointer: string;

  @ApiPropertyOptional({ description: 'A likely fix (nearest known name, allowed values)', example: 'Did you mean "src"?' })
  suggestion?: string;
}

@ApiSchema({ name: 'ErrorBody' })
export class ErrorBodyDto {
  @ApiProperty({ enum: Object.keys(ERROR_STATUS), example: 'invalid_request' })
  code: string;

  @ApiProperty({ example: 'Invalid request: Field required at /elements/0/src' })
  message: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'Machine-readable details; for `invalid_request`, `errors` (ValidationErrorItem[]) and, when cut short, `errors_total`',
  })
  details?: Record<string, unknown>;
}

/** Every error the service answers, whatever the status: `{error: {code, message, details}}`. */
@ApiSchema({ name: 'ErrorEnvelope' })
export class ErrorEnvelopeDto {
  @ApiProperty({ type: () => ErrorBodyDto })
  error: ErrorBodyDto;
}
