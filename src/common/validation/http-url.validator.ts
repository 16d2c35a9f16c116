import { registerDecorator, ValidationOptions } from 'class-validator';
import { httpUrlProblem, URL_MAX_LENGTH } from '../../../composition/src/schema';

export { URL_MAX_LENGTH };

/**
 * The render schema's URL rule (composition/src/schema/url-rule.ts) on a REST DTO field, so a URL
 * valid in a render request is valid in a task or a webhook too. Reported as `url_parsing`.
 */
export function IsHttpUrl(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) => {
    registerDecorator({
      name: 'isHttpUrl',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) => typeof value === 'string' && httpUrlProblem(value) === null,
        defaultMessage: (args) =>
          typeof args?.value === 'string' ? (httpUrlProblem(args.value) ?? 'Input should be an http(s) URL') : `${args?.property} must be a string`,
      },
    });
  };
}
