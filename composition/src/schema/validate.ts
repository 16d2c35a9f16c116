import { checkFontFamilies } from './font-families';
import { z } from 'zod';
import { REQUEST_LIMITS } from './limits';
import { renderRequestSchema, type RenderRequest } from './request';
import { closestMatch, jsonPointer } from './suggest';
import { ELEMENT_TYPES, type ElementType } from './vocabulary';

/** One item of `details.errors` (docs/decisions/0003-errors.md). */
export interface ValidationIssue {
  type: string;
  loc: (string | number)[];
  msg: string;
  pointer: string;
  suggestion?: string;
}

export type ValidationResult = { ok: true; value: RenderRequest } | { ok: false; errors: ValidationIssue[] };

type Path = (string | number)[];
type ZodIssue = z.core.$ZodIssue;

/**
 * Real fields that belong elsewhere: the message explains where, and no suggestion is made
 * (a near-miss field name would send the caller the wrong way).
 */
const MISPLACED_FIELDS: Partial<Record<ElementType, Record<string, string>>> = {
  video: {
    duration:
      '"duration" is not a field of video elements: the clip length is set with "out_point" (and "in_point"), in seconds of the source; without them the whole source plays',
  },
  audio: {
    duration:
      '"duration" is not a field of audio elements: the clip length is set with "out_point" (and "in_point"), in seconds of the source; without them the whole source plays',
  },
};

export function validateRenderRequest(input: unknown): ValidationResult {
  // Too many elements is refused before any of them is checked: checking them all first would let
  // one request hold the event loop.
  const elements = (input as { elements?: unknown } | null)?.elements;
  if (Array.isArray(elements) && elements.length > REQUEST_LIMITS.elements) {
    return {
      ok: false,
      errors: [item(['elements'], input, 'too_long', `List should have at most ${REQUEST_LIMITS.elements} items, not ${elements.length}`)],
    };
  }
  const result = renderRequestSchema.safeParse(input, { error: pydanticMessage });
  if (result.success) return { ok: true, value: result.data };
  const errors = result.error.issues.flatMap((issue) => toValidationIssues(issue, input, [], renderRequestSchema));
  // Whole-request checks do not run when a part fails; unknown font families are still reported.
  const seen = new Set(errors.map((issue) => issue.pointer));
  const families = fontFamilyIssues(input).filter((issue) => !seen.has(issue.pointer));
  return { ok: false, errors: [...errors, ...families] };
}

/** Unknown `font_family` values of a request that failed elsewhere (checkFontFamilies on the raw body). */
function fontFamilyIssues(input: unknown): ValidationIssue[] {
  const raw = input as { elements?: unknown; fonts?: unknown } | null;
  if (!raw || !Array.isArray(raw.elements)) return [];
  const fonts = Array.isArray(raw.fonts) ? raw.fonts.filter((font): font is { family?: string } => !!font && typeof font === 'object') : [];
  const elements = raw.elements.map((element: unknown) => {
    const text = element as { type?: unknown; font_family?: unknown } | null;
    return text && text.type === 'text' && typeof text.font_family === 'string' ? { type: 'text' as const, font_family: text.font_family } : { type: 'shape' as const };
  });
  const found: ValidationIssue[] = [];
  const ctx = { addIssue: (issue: { path: Path; message: string; params: { type: string; suggestion?: string } }) => found.push(item(issue.path, input, issue.params.type, issue.message, issue.params.suggestion)) };
  checkFontFamilies({ elements, fonts: fonts.map((font) => ({ family: typeof font.family === 'string' ? font.family : undefined, source_url: '' })) } as Parameters<typeof checkFontFamilies>[0], ctx as unknown as Parameters<typeof checkFontFamilies>[1]);
  return found;
}

/**
 * Validates one member of a request body (e.g. `preview`) with its own schema, reporting issues
 * exactly as the render request's: locations and pointers into the whole body, suggestions.
 */
export function validateBodyMember<T>(schema: z.ZodType<T>, body: Record<string, unknown>, key: string): { ok: true; value: T } | { ok: false; errors: ValidationIssue[] } {
  const result = schema.safeParse(body[key], { error: pydanticMessage });
  if (result.success) return { ok: true, value: result.data };
  const root = z.object({ [key]: schema });
  return { ok: false, errors: result.error.issues.flatMap((issue) => toValidationIssues(issue, body, [key], root)) };
}

function toValidationIssues(issue: ZodIssue, input: unknown, base: Path, root: z.ZodType): ValidationIssue[] {
  const path: Path = [...base, ...(issue.path as Path)];
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => extraField(path, key, input, root));
    case 'invalid_union': {
      if (issue.discriminator !== undefined && 'options' in issue) return [unionTag(path, issue.discriminator, (issue.options ?? []).map(String), input)];
      // A branch whose type matched explains the failure better than "no branch matched".
      const typeMatched = issue.errors.filter((branch) => !isRootTypeMismatch(branch));
      if (typeMatched.length === 1) return typeMatched[0].flatMap((inner) => toValidationIssues(inner, input, path, root));
      const first = issue.errors[0]?.[0];
      const type = first?.code === 'invalid_type' ? typeMismatchType(first.expected) : 'value_error';
      return [item(path, input, isMissing(path, input) ? 'missing' : type, issue.message)];
    }
    case 'invalid_type': {
      if (isMissing(path, input)) return [item(path, input, 'missing', 'Field required')];
      // zod reports a non-number sent to an integer field as expecting "number".
      const schema = issue.expected === 'number' ? schemaAt(path, input, root) : undefined;
      if (schema instanceof z.ZodNumber && schema.isInt) return [item(path, input, 'int_type', 'Input should be a valid integer')];
      return [item(path, input, typeMismatchType(issue.expected), issue.message)];
    }
    case 'too_small':
      return [item(path, input, sizeType('small', issue.origin, issue.inclusive), issue.message)];
    case 'too_big':
      return [item(path, input, sizeType('big', issue.origin, issue.inclusive), issue.message)];
    case 'invalid_format':
      return [item(path, input, issue.format === 'regex' ? 'string_pattern_mismatch' : issue.format === 'url' ? 'url_parsing' : 'value_error', issue.message)];
    case 'invalid_value': {
      const value = valueAt(path, input);
      const suggestion = typeof value === 'string' ? closestMatch(value, issue.values.map(String)) : undefined;
      const type = issue.values.length > 1 ? 'enum' : 'literal_error';
      return [item(path, input, type, issue.message, suggestion)];
    }
    case 'not_multiple_of':
      return [item(path, input, 'multiple_of', issue.message)];
    case 'custom':
      return [item(path, input, (issue.params?.type as string | undefined) ?? 'value_error', issue.message, issue.params?.suggestion as string | undefined)];
    default:
      return [item(path, input, 'value_error', issue.message)];
  }
}

function item(path: Path, input: unknown, type: string, msg: string, suggestion?: string): ValidationIssue {
  return validationIssue(toLoc(path, input), path, type, msg, suggestion);
}

/**
 * One item of `details.errors`, as every validator of the service writes it (this module for the
 * render request, the REST validation pipe for DTOs): `loc` from the root, the RFC 6901 pointer of
 * `path` in what was sent, and a suggestion that the message repeats.
 */
export function validationIssue(loc: (string | number)[], path: Path, type: string, msg: string, suggestion?: string): ValidationIssue {
  const issue: ValidationIssue = { type, loc, msg: withSuggestion(msg, suggestion), pointer: jsonPointer(path) };
  if (suggestion !== undefined) issue.suggestion = suggestion;
  return issue;
}

/** `loc` starts with "body" and names the element type after an element's index (the union tag). */
function toLoc(path: Path, input: unknown): (string | number)[] {
  const tag = path.length >= 2 ? elementTypeAt(path.slice(0, 2), input) : undefined;
  return tag ? ['body', ...path.slice(0, 2), tag, ...path.slice(2)] : ['body', ...path];
}

function extraField(objectPath: Path, key: string, input: unknown, root: z.ZodType): ValidationIssue {
  const path = [...objectPath, key];
  const owner = elementTypeAt(objectPath, input);
  const misplaced = owner ? MISPLACED_FIELDS[owner]?.[key] : undefined;
  if (misplaced) return item(path, input, 'extra_forbidden', misplaced);
  const suggestion = closestMatch(key, knownFields(objectPath, input, root));
  const where = owner ? `${owner} elements` : objectPath.length === 0 ? 'the render request' : 'this object';
  return item(path, input, 'extra_forbidden', `Extra inputs are not permitted: "${key}" is not a field of ${where}`, suggestion);
}

function unionTag(path: Path, discriminator: string, tags: string[], input: unknown): ValidationIssue {
  const value = valueAt(path, input);
  const expected = tags.map((tag) => `'${tag}'`).join(', ');
  if (value === undefined) {
    const what = discriminator === 'type' ? 'every element needs a "type"' : `"${discriminator}" is required`;
    return item(path, input, 'missing', `Field required: ${what}, one of ${expected}`);
  }
  const suggestion = typeof value === 'string' ? closestMatch(value, tags) : undefined;
  const msg = `Input tag '${String(value)}' found using '${discriminator}' does not match any of the expected tags: ${expected}`;
  return item(path, input, 'union_tag_invalid', msg, suggestion);
}

function withSuggestion(msg: string, suggestion: string | undefined): string {
  return suggestion === undefined ? msg : `${msg}; did you mean "${suggestion}"?`;
}

function isRootTypeMismatch(branch: ZodIssue[]): boolean {
  return branch.length === 1 && branch[0].code === 'invalid_type' && branch[0].path.length === 0;
}

function typeMismatchType(expected: string): string {
  const types: Record<string, string> = {
    string: 'string_type', number: 'float_type', int: 'int_type', boolean: 'bool_type',
    object: 'model_type', record: 'dict_type', array: 'list_type', tuple: 'tuple_type',
  };
  return types[expected] ?? `${expected}_type`;
}

function sizeType(direction: 'small' | 'big', origin: string, inclusive: boolean | undefined): string {
  if (origin === 'string') return direction === 'small' ? 'string_too_short' : 'string_too_long';
  if (origin === 'array' || origin === 'set') return direction === 'small' ? 'too_short' : 'too_long';
  const bound = direction === 'small' ? 'greater_than' : 'less_than';
  return inclusive ? `${bound}_equal` : bound;
}

function valueAt(path: Path, input: unknown): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string | number, unknown>)[key];
  }
  return value;
}

function isMissing(path: Path, input: unknown): boolean {
  if (path.length === 0) return input === undefined;
  const parent = valueAt(path.slice(0, -1), input);
  return parent !== null && typeof parent === 'object' && !(path[path.length - 1] in parent);
}

function elementTypeAt(objectPath: Path, input: unknown): ElementType | undefined {
  if (objectPath.length !== 2 || objectPath[0] !== 'elements' || typeof objectPath[1] !== 'number') return undefined;
  const type = valueAt([...objectPath, 'type'], input);
  return ELEMENT_TYPES.find((known) => known === type);
}

/** Field names the schema accepts for the object at `objectPath` (for "did you mean"). */
function knownFields(objectPath: Path, input: unknown, root: z.ZodType): string[] {
  const schema = schemaAt(objectPath, input, root);
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

/** The schema that validates the value at `path`, following the variant the input chose. */
function schemaAt(path: Path, input: unknown, root: z.ZodType): z.ZodType | undefined {
  let schema: z.ZodType | undefined = root;
  let value = input;
  for (const key of path) {
    const here: z.ZodType = variantFor(schema, value);
    if (here instanceof z.ZodObject) schema = here.shape[key as string] as z.ZodType | undefined;
    else if (here instanceof z.ZodArray) schema = here.element as z.ZodType;
    else return undefined;
    if (!schema) return undefined;
    value = valueAt([key], value);
  }
  return variantFor(schema, value);
}

/** Strips optional/nullable wrappers and picks the object variant of a union that fits `value`. */
function variantFor(schema: z.ZodType, value: unknown): z.ZodType {
  let inner = schema;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable) inner = inner.unwrap() as z.ZodType;
  if (!(inner instanceof z.ZodUnion)) return inner;
  const objects = (inner.options as z.ZodType[]).filter((option): option is z.ZodObject => option instanceof z.ZodObject);
  // Unions are tagged by `type` (elements) or `mode` (preview).
  const tagged = (option: z.ZodObject, key: string) => (option.shape[key] as z.ZodType | undefined)?.safeParse(valueAt([key], value)).success;
  return objects.find((option) => tagged(option, 'type') || tagged(option, 'mode')) ?? objects[0] ?? inner;
}

/** Pydantic-style wording for issues whose schema sets no message of its own. */
function pydanticMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type': {
      const names: Record<string, string> = {
        string: 'a valid string', number: 'a valid number', int: 'a valid integer', boolean: 'a valid boolean',
        object: 'an object', record: 'an object', array: 'a valid list',
      };
      return issue.input === undefined ? 'Field required' : `Input should be ${names[issue.expected] ?? issue.expected}`;
    }
    case 'too_small':
    case 'too_big': {
      const limit = issue.code === 'too_small' ? issue.minimum : issue.maximum;
      const word = issue.code === 'too_small' ? 'least' : 'most';
      if (issue.origin === 'string') return `String should have at ${word} ${limit} characters`;
      if (issue.origin === 'array') return `List should have at ${word} ${limit} items`;
      const comparison = issue.code === 'too_small' ? 'greater than' : 'less than';
      return `Input should be ${comparison}${issue.inclusive ? ' or equal to' : ''} ${limit}`;
    }
    case 'invalid_value': {
      const quoted = issue.values.map((value) => `'${String(value)}'`);
      return `Input should be ${quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}` : quoted[0]}`;
    }
    case 'invalid_format':
      return issue.format === 'regex' && 'pattern' in issue ? `String should match pattern '${String(issue.pattern)}'` : undefined;
    case 'not_multiple_of':
      return `Input should be a multiple of ${issue.divisor}`;
    default:
      return undefined;
  }
}
