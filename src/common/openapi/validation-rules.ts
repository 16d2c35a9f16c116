import { createRequire } from 'node:module';
import type { INestApplication, Type } from '@nestjs/common';
import { METHOD_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ModulesContainer } from '@nestjs/core';
import type { OpenAPIObject, ParameterObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';
import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { URL_MAX_LENGTH } from '../../../composition/src/schema';
import { REQUIRES_SIBLING } from '../validation/requires-sibling.validator';
import { OBJECT_RULES_METADATA } from './api-docs.decorators';
import { HTTP_URL_PATTERN } from './url-pattern';

/**
 * The service validates every body and query DTO with ApiValidationPipe (class-validator, unknown
 * fields refused). @nestjs/swagger documents only what `@ApiProperty` repeats by hand, so the
 * document was looser than the service. Here the document is made from the validators themselves:
 * each rule a route's DTO carries becomes its JSON Schema keyword, required fields are the ones
 * without @IsOptional, and body objects say `additionalProperties: false`. A DTO added later is
 * covered without touching this file, as long as its validators are in RULES below (the test
 * test/openapi-strictness.spec.ts fails on one that is not).
 */

// JSON Schema 2020-12 keywords (exclusiveMinimum a number, dependentSchemas) beyond swagger's 3.0 type.
type Schema = Omit<SchemaObject, 'exclusiveMinimum'> & { exclusiveMinimum?: number; [keyword: string]: unknown };
type Rule = (schema: Schema, constraints: unknown[]) => void;

const setType = (type: string): Rule => (schema) => {
  // A nullable field keeps its null (withNullAsType wrote `type: [T, 'null']`).
  const nullable = Array.isArray(schema.type) && (schema.type as string[]).includes('null');
  schema.type = (nullable ? [type, 'null'] : type) as SchemaObject['type'];
  if (type !== 'object') delete schema.additionalProperties;
  if (type !== 'array') delete schema.items;
};

const addPattern = (schema: Schema, source: string): void => {
  if (schema.pattern === undefined || schema.pattern === source) {
    schema.pattern = source;
    return;
  }
  // JSON Schema allows one `pattern` per schema; further ones go into allOf.
  const more = (schema.allOf ??= []) as Schema[];
  if (!more.some((s) => s.pattern === source)) more.push({ pattern: source });
};

/** class-validator's rule name → what it means in JSON Schema (2020-12, OpenAPI 3.1). */
export const RULES: Record<string, Rule> = {
  isString: setType('string'),
  isInt: setType('integer'),
  isNumber: setType('number'),
  isBoolean: setType('boolean'),
  isObject: setType('object'),
  isArray: setType('array'),
  minLength: (s, [n]) => void (s.minLength = n as number),
  maxLength: (s, [n]) => void (s.maxLength = n as number),
  isNotEmpty: (s) => void (s.minLength = Math.max(1, s.minLength ?? 0)),
  min: (s, [n]) => void (s.minimum = n as number),
  max: (s, [n]) => void (s.maximum = n as number),
  isDivisibleBy: (s, [n]) => void (s.multipleOf = n as number),
  isPositive: (s) => {
    s.exclusiveMinimum = 0;
    if (typeof s.minimum === 'number' && s.minimum <= 0) delete s.minimum;
  },
  matches: (s, [pattern]) => addPattern(s, pattern instanceof RegExp ? pattern.source : String(pattern)),
  isIn: (s, [values]) => void (s.enum = [...(values as unknown[])]),
  isEnum: (s, [values]) => void (s.enum = Object.values(values as object)),
  arrayMinSize: (s, [n]) => void (s.minItems = n as number),
  arrayMaxSize: (s, [n]) => void (s.maxItems = n as number),
  arrayNotEmpty: (s) => void (s.minItems = Math.max(1, s.minItems ?? 0)),
  isEmail: (s) => void (s.format = 'email'),
  // The render schema's URL rule (common/validation/http-url.validator.ts).
  isHttpUrl: (s) => {
    s.format = 'uri';
    s.minLength = 1;
    s.maxLength = URL_MAX_LENGTH;
    addPattern(s, HTTP_URL_PATTERN);
  },
  // Size and depth are described in the field's text; JSON Schema has no keyword for bytes.
  isMetadata: setType('object'),
  // Field-level rules handled elsewhere: presence (required) and cross-field rules (the object).
  isDefined: () => undefined,
  [REQUIRES_SIBLING]: () => undefined,
  // The nested class's own rules are written on its schema (documentObject follows @Type).
  nestedValidation: () => undefined,
};

/** Rules that decide presence, not the value: @IsOptional (not required), @IsDefined (required). */
const PRESENCE = new Set(['isOptional', 'isDefined']);

export interface UntranslatedRule {
  dto: string;
  property: string;
  rule: string;
}

/**
 * Every route's body and query DTO, found in the controllers as the router has them: the
 * operationId (`Controller_method`, @nestjs/swagger's default) names its operation.
 */
export function routeDtos(app: INestApplication): { operationId: string; body?: Type<unknown>; query?: Type<unknown> }[] {
  const routes: { operationId: string; body?: Type<unknown>; query?: Type<unknown> }[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type<unknown> | null;
      if (!controller) continue;
      for (const method of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[method];
        if (typeof handler !== 'function' || Reflect.getMetadata(METHOD_METADATA, handler) === undefined) continue;
        const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}) as Record<string, { index: number; data?: unknown }>;
        const types = (Reflect.getMetadata('design:paramtypes', controller.prototype, method) ?? []) as Type<unknown>[];
        const route: (typeof routes)[number] = { operationId: `${controller.name}_${method}` };
        for (const [key, arg] of Object.entries(args)) {
          const kind = Number(key.split(':')[0]);
          const type = types[arg.index];
          if (arg.data !== undefined || !isDto(type)) continue;
          if (kind === RouteParamtypes.BODY) route.body = type;
          if (kind === RouteParamtypes.QUERY) route.query = type;
        }
        routes.push(route);
      }
    }
  }
  return routes;
}

function isDto(type: unknown): type is Type<unknown> {
  return typeof type === 'function' && ![String, Number, Boolean, Object, Array].includes(type as never) && rulesOf(type as Type<unknown>).size > 0;
}

function rulesOf(dto: Type<unknown>): Map<string, ValidationMetadata[]> {
  const byProperty = new Map<string, ValidationMetadata[]>();
  for (const meta of getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false)) {
    byProperty.set(meta.propertyName, [...(byProperty.get(meta.propertyName) ?? []), meta]);
  }
  return byProperty;
}

const ruleName = (meta: ValidationMetadata): string => meta.name ?? meta.type;

/** Validators on the routes' DTOs that RULES cannot write into the document (empty: it is exact). */
export function untranslatedRules(app: INestApplication): UntranslatedRule[] {
  const found: UntranslatedRule[] = [];
  const seen = new Set<Type<unknown>>();
  const visit = (dto: Type<unknown>) => {
    if (seen.has(dto)) return;
    seen.add(dto);
    for (const [property, metas] of rulesOf(dto)) {
      for (const meta of metas) {
        const rule = ruleName(meta);
        if (!PRESENCE.has(rule) && !RULES[rule] && rule !== 'whitelistValidation') found.push({ dto: dto.name, property, rule });
        if (rule === 'nestedValidation') {
          const nested = nestedClassOf(dto, property);
          if (nested) visit(nested);
          else found.push({ dto: dto.name, property, rule: 'nestedValidation without @Type' });
        }
      }
    }
  };
  for (const route of routeDtos(app)) for (const dto of [route.body, route.query]) if (dto) visit(dto);
  return found;
}

/** class-transformer's @Type metadata: kept in a storage its package entry does not export. */
const typeMetadata = (createRequire(__filename)('class-transformer/cjs/storage') as {
  defaultMetadataStorage: { findTypeMetadata(target: Type<unknown>, property: string): { typeFunction(): unknown } | undefined };
}).defaultMetadataStorage;

/** The class a @ValidateNested property holds, from its class-transformer @Type. */
function nestedClassOf(dto: Type<unknown>, property: string): Type<unknown> | undefined {
  const meta = typeMetadata.findTypeMetadata(dto, property);
  return meta?.typeFunction() as Type<unknown> | undefined;
}

/**
 * Writes each route DTO's rules into the document: body schemas (through their `$ref`) and query
 * parameters. A rule without a translation is left out (untranslatedRules lists them for the tests).
 */
export function documentValidationRules(app: INestApplication, document: OpenAPIObject): void {
  const operations = new Map<string, { operation: Record<string, unknown> }>();
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item as object) as Record<string, unknown>[]) {
      if (operation && typeof operation === 'object' && typeof operation.operationId === 'string') operations.set(operation.operationId, { operation });
    }
  }
  const done = new Set<Schema>();
  for (const route of routeDtos(app)) {
    const found = operations.get(route.operationId);
    if (!found) continue;
    const { operation } = found;
    if (route.body) {
      const content = (operation.requestBody as { content?: Record<string, { schema?: Schema | ReferenceObject }> } | undefined)?.content;
      const schema = content?.['application/json']?.schema;
      const target = schema && resolve(document, schema);
      if (target && !done.has(target)) {
        done.add(target);
        documentObject(target, route.body, document);
      }
    }
    if (route.query) {
      for (const [property, metas] of rulesOf(route.query)) {
        const parameters = (operation.parameters ?? []) as ParameterObject[];
        let parameter = parameters.find((p) => p.in === 'query' && p.name === property);
        if (!parameter) {
          parameter = { name: property, in: 'query', schema: {} };
          parameters.push(parameter);
          operation.parameters = parameters;
        }
        const schema = (parameter.schema ??= {}) as Schema;
        documentProperty(schema, metas);
        parameter.required = isRequired(metas);
      }
    }
  }
}

function resolve(document: OpenAPIObject, schema: Schema | ReferenceObject): Schema | undefined {
  const ref = (schema as ReferenceObject).$ref;
  if (ref === undefined) return schema as Schema;
  return document.components?.schemas?.[ref.split('/').pop()!] as Schema | undefined;
}

function isRequired(metas: ValidationMetadata[]): boolean {
  return !metas.some((m) => ruleName(m) === 'isOptional');
}

/** A body object: its properties' rules, its required list, its cross-field rules, no other fields. */
function documentObject(schema: Schema, dto: Type<unknown>, document: OpenAPIObject): void {
  const properties = (schema.properties ??= {}) as Record<string, Schema>;
  const required: string[] = [];
  for (const [property, metas] of rulesOf(dto)) {
    const propertySchema = (properties[property] ??= {});
    documentProperty(propertySchema, metas);
    const nested = metas.some((m) => ruleName(m) === 'nestedValidation') ? nestedClassOf(dto, property) : undefined;
    // A nested object (or each item) is its own schema, usually a $ref: its class's rules go there.
    const holder = nested && (metas.some((m) => ruleName(m) === 'nestedValidation' && m.each) ? (propertySchema.items as Schema | ReferenceObject | undefined) : propertySchema);
    const target = holder && resolve(document, holder);
    if (nested && target) documentObject(target, nested, document);
    if (isRequired(metas)) required.push(property);
    for (const meta of metas.filter((m) => ruleName(m) === REQUIRES_SIBLING)) {
      const [sibling, value] = meta.constraints as [string, unknown];
      schema.dependentRequired = { ...(schema.dependentRequired as object), [property]: [sibling] };
      schema.dependentSchemas = { ...(schema.dependentSchemas as object), [property]: { properties: { [sibling]: { const: value } } } };
    }
  }
  // The pipe refuses (never strips) a field no validator names: whitelist + forbidNonWhitelisted.
  for (const name of Object.keys(properties)) if (!rulesOf(dto).has(name)) delete properties[name];
  schema.type = 'object';
  if (required.length > 0) schema.required = Object.keys(properties).filter((name) => required.includes(name));
  else delete schema.required;
  schema.additionalProperties = false;
  Object.assign(schema, Reflect.getMetadata(OBJECT_RULES_METADATA, dto) ?? {});
}

function documentProperty(schema: Schema, metas: ValidationMetadata[]): void {
  // Type rules first, so the bounds land on the type they belong to.
  const ordered = [...metas].sort((a, b) => Number(!ruleName(a).startsWith('is')) - Number(!ruleName(b).startsWith('is')));
  for (const meta of ordered) {
    const name = ruleName(meta);
    if (PRESENCE.has(name)) continue;
    const rule = RULES[name];
    if (!rule) continue;
    const target = meta.each ? ((schema.items ??= {}) as Schema) : schema;
    rule(target, meta.constraints ?? []);
  }
}
