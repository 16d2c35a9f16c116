import { registerDecorator, ValidationOptions } from 'class-validator';
import { metadataProblem } from '../../../composition/src/schema';

/** The render request's metadata rule (size and depth, REQUEST_LIMITS) on a REST DTO field. */
export function IsMetadata(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) => {
    registerDecorator({
      name: 'isMetadata',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value) && metadataProblem(value) === null,
        defaultMessage: (args) =>
          args && args.value !== null && typeof args.value === 'object' && !Array.isArray(args.value)
            ? (metadataProblem(args.value) ?? 'metadata is invalid')
            : 'metadata must be an object',
      },
    });
  };
}
