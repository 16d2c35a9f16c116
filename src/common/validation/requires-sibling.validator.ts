import { registerDecorator, ValidationOptions } from 'class-validator';

/** The validator's name; the OpenAPI document reads it to write `dependentRequired`/`dependentSchemas`. */
export const REQUIRES_SIBLING = 'requiresSibling';

/**
 * A field that makes sense only with another one set to a value (`speakers_expected` needs
 * `speaker_labels: true`). Checked with the other field rules, so the refusal is one 422 item, and
 * documented by the OpenAPI document from the same metadata (src/common/openapi/validation-rules.ts).
 */
export function RequiresSibling(sibling: string, value: unknown, options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) => {
    registerDecorator({
      name: REQUIRES_SIBLING,
      target: target.constructor,
      propertyName: propertyName as string,
      constraints: [sibling, value],
      options,
      validator: {
        validate: (fieldValue: unknown, args) => fieldValue === undefined || (args?.object as Record<string, unknown>)[sibling] === value,
        defaultMessage: (args) => `${args?.property} needs ${sibling}: ${JSON.stringify(value)}`,
      },
    });
  };
}
