import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { DECORATORS } from '@nestjs/swagger';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validate, ValidationError } from 'class-validator';
import { ApiError, ValidationErrorItem } from '../errors/api-error';
import { validationIssue } from '../../../composition/src/schema';
import { closestMatch } from './suggest';

/** class-validator constraint name → Pydantic-style error `type` (docs/decisions/0003-errors.md). */
const TYPE_BY_CONSTRAINT: Record<string, string> = {
  whitelistValidation: 'extra_forbidden',
  isDefined: 'missing',
  isString: 'string_type',
  isInt: 'int_type',
  isNumber: 'float_type',
  isBoolean: 'bool_type',
  isObject: 'dict_type',
  isArray: 'list_type',
  isIn: 'enum',
  isEnum: 'enum',
  isEmail: 'value_error',
  isUrl: 'url_parsing',
  isHttpUrl: 'url_parsing',
  isMetadata: 'value_error',
  minLength: 'string_too_short',
  maxLength: 'string_too_long',
  isNotEmpty: 'string_too_short',
  min: 'greater_than_equal',
  max: 'less_than_equal',
  matches: 'string_pattern_mismatch',
};

/** A DTO class, as class-validator's metadata storage knows it. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- class-validator's own API takes Function
type DtoClass = Function;

const TYPE_CONSTRAINTS = new Set(['isString', 'isInt', 'isNumber', 'isBoolean', 'isObject', 'isArray']);

const LOC_ROOT: Record<string, string> = { body: 'body', query: 'query', param: 'path' };

/**
 * Validates DTO classes and reports problems in the spec's shape: Pydantic-style `type`, `loc`,
 * `msg`, RFC 6901 `pointer`, and a `suggestion` when an unknown field or enum value is a likely typo.
 * Unknown fields are always rejected (`extra_forbidden`), never stripped.
 */
@Injectable()
export class ApiValidationPipe implements PipeTransform {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { metatype } = metadata;
    // Custom parameter decorators (the caller's workspace) carry server-made values, not input.
    if (metadata.type === 'custom') return value;
    if (!metatype || [String, Boolean, Number, Array, Object].includes(metatype as never)) return value;
    const root = LOC_ROOT[metadata.type] ?? 'body';
    const input = value ?? {};
    if (typeof input !== 'object' || Array.isArray(input)) {
      throw ApiError.validation([
        { type: 'model_type', loc: [root], msg: `The ${root} must be a JSON object`, pointer: '' },
      ]);
    }
    if (root === 'body') {
      const nulls = explicitNulls(input as Record<string, unknown>, metatype);
      if (nulls.length > 0) throw ApiError.validation(nulls);
    }
    const instance = plainToInstance(metatype, input, { enableImplicitConversion: false });
    const errors = await validate(instance as object, {
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      validationError: { target: false, value: true },
    });
    if (errors.length > 0) throw ApiError.validation(flatten(errors, [], root, metatype));
    return instance;
  }
}

function flatten(errors: ValidationError[], path: (string | number)[], root: string, cls: DtoClass): ValidationErrorItem[] {
  const items: ValidationErrorItem[] = [];
  for (const error of errors) {
    const here = [...path, isIndex(error.property) ? Number(error.property) : error.property];
    if (error.constraints) items.push(toItem(error, here, root, cls));
    if (error.children?.length) {
      items.push(...flatten(error.children, here, root, cls));
    }
  }
  return items;
}

function toItem(error: ValidationError, path: (string | number)[], root: string, cls: DtoClass): ValidationErrorItem {
  const constraints = error.constraints ?? {};
  const names = Object.keys(constraints);
  const loc = [root, ...path];
  if (names.includes('whitelistValidation')) {
    const suggestion = closestMatch(error.property, knownProperties(cls));
    return validationIssue(loc, path, 'extra_forbidden', `Unknown field "${error.property}"`, suggestion);
  }
  if (error.value === undefined && !names.includes('isOptional')) {
    return validationIssue(loc, path, 'missing', 'Field required');
  }
  // A wrong type explains the value better than the length or range checks that also failed.
  const name = names.find((n) => TYPE_CONSTRAINTS.has(n)) ?? names[0];
  if ((name === 'isIn' || name === 'isEnum') && typeof error.value === 'string') {
    const allowed = allowedValues(cls, error.property);
    const suggestion = closestMatch(error.value, allowed);
    return validationIssue(loc, path, TYPE_BY_CONSTRAINT[name], `Input should be one of ${allowed.map((v) => `"${v}"`).join(', ')}`, suggestion);
  }
  return validationIssue(loc, path, TYPE_BY_CONSTRAINT[name] ?? 'value_error', constraints[name]);
}

/**
 * class-validator's @IsOptional lets null through as if the field were absent, so a PATCH with
 * `"name": null` would reach the database (or be dropped). Null is accepted only where the
 * OpenAPI document says so (`nullable` on the property); elsewhere it is refused with the type
 * error the field's own type gives.
 */
function explicitNulls(input: Record<string, unknown>, cls: DtoClass): ValidationErrorItem[] {
  const metas = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  const items: ValidationErrorItem[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (value !== null) continue;
    const own = metas.filter((m) => m.propertyName === key);
    if (own.length === 0) continue; // an unknown field: refused as extra_forbidden by validate()
    const documented = Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, cls.prototype, key) as { nullable?: boolean } | undefined;
    if (documented?.nullable) continue;
    const typeCheck = own.find((m) => m.name !== undefined && TYPE_CONSTRAINTS.has(m.name));
    items.push(
      validationIssue(['body', key], [key], typeCheck?.name ? TYPE_BY_CONSTRAINT[typeCheck.name] : 'value_error', `"${key}" must not be null; omit the field to leave it unset`),
    );
  }
  return items;
}

function isIndex(property: string): boolean {
  return /^\d+$/.test(property);
}

function knownProperties(cls: DtoClass): string[] {
  const metas = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  return [...new Set(metas.map((m) => m.propertyName))];
}

function allowedValues(cls: DtoClass, property: string): string[] {
  const metas = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  const meta = metas.find((m) => m.propertyName === property && (m.name === 'isIn' || m.name === 'isEnum'));
  const raw = meta?.constraints?.[0];
  if (Array.isArray(raw)) return raw.map(String);
  if (raw && typeof raw === 'object') return Object.values(raw).map(String);
  return [];
}
