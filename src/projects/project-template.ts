import { applyOperation, JsonPatchError, type Operation } from 'fast-json-patch';
import {
  findPlaceholders,
  findUnsupported,
  substituteVariables,
  validateRenderRequest,
  VARIABLE_NAME_PATTERN,
  type ValidationIssue,
  type Variables,
} from '../../composition/src/schema';
import { ApiError, ValidationErrorItem } from '../common/errors/api-error';
import { jsonPointer } from '../../composition/src/schema';

/** Bounds of what a project stores and an ops batch carries. */
export const PROJECT_LIMITS = { variables: 100, variable_value_length: 10_000, ops: 500, name_length: 200 } as const;

const JSON_PATCH_OPS = ['add', 'remove', 'replace', 'move', 'copy', 'test'] as const;
/** Keys that reach an object's prototype when a path is walked; no op may name them. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Checks a template as a render request. Placeholders are first filled with the defaults; a field
 * that still holds one (a variable given only at render time, or a `brand.…` one) is not judged
 * here: the substituted request is validated again when rendered.
 */
export function templateProblems(request: unknown, defaults: Variables): ValidationIssue[] {
  const filled = substituteVariables(request, defaults, { keepMissing: true });
  const document = filled.ok ? filled.value : request;
  const open = new Set(findPlaceholders(document).map((placeholder) => placeholder.pointer));
  const parsed = validateRenderRequest(document);
  if (parsed.ok) return [];
  return parsed.errors.filter((issue) => !open.has(issue.pointer));
}

/** 422 with the problems of a template, or 422 `unsupported_feature` like a render submit. */
export function assertValidTemplate(request: unknown, defaults: Variables, pointerPrefix = '/render_request'): void {
  const problems = templateProblems(request, defaults);
  if (problems.length > 0) {
    throw ApiError.validation(problems.map((issue) => ({ ...issue, loc: [...issue.loc.slice(0, 1), 'render_request', ...issue.loc.slice(1)], pointer: pointerPrefix + issue.pointer })));
  }
  assertRenderable(request, defaults, pointerPrefix);
}

function assertRenderable(request: unknown, defaults: Variables, pointerPrefix: string): void {
  const filled = substituteVariables(request, defaults, { keepMissing: true });
  const parsed = validateRenderRequest(filled.ok ? filled.value : request);
  if (!parsed.ok) return;
  const unsupported = findUnsupported(parsed.value);
  if (unsupported.length > 0) {
    throw new ApiError('unsupported_feature', `Not supported by this renderer yet: ${unsupported.map((u) => u.pointer || '/').join(', ')}`, {
      errors: unsupported.map((u) => ({ ...u, pointer: pointerPrefix + u.pointer })),
    });
  }
}

/** The `variables` object of a project or a project render: names to strings. */
export function parseVariables(input: unknown, field = 'variables'): Variables {
  if (input === undefined || input === null) return {};
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw ApiError.validation([{ type: 'dict_type', loc: ['body', field], msg: 'Input should be an object of variable names to strings', pointer: `/${field}` }]);
  }
  const entries = Object.entries(input as Record<string, unknown>);
  const errors: ValidationErrorItem[] = [];
  if (entries.length > PROJECT_LIMITS.variables) {
    errors.push({ type: 'too_long', loc: ['body', field], msg: `At most ${PROJECT_LIMITS.variables} variables`, pointer: `/${field}` });
  }
  for (const [name, value] of entries) {
    const pointer = jsonPointer([field, name]);
    if (!VARIABLE_NAME_PATTERN.test(name)) {
      errors.push({ type: 'value_error', loc: ['body', field, name], msg: 'A variable name is letters, digits and "_" in dotted segments, starting with a letter or "_"', pointer });
    } else if (name === 'brand' || name.startsWith('brand.')) {
      errors.push({ type: 'value_error', loc: ['body', field, name], msg: '"brand.…" variables come from the request\'s brand_kit_id and cannot be set', pointer });
    } else if (typeof value !== 'string') {
      errors.push({ type: 'string_type', loc: ['body', field, name], msg: 'A variable value should be a string (it replaces {{name}} inside a string)', pointer });
    } else if (value.length > PROJECT_LIMITS.variable_value_length) {
      errors.push({ type: 'string_too_long', loc: ['body', field, name], msg: `String should have at most ${PROJECT_LIMITS.variable_value_length} characters`, pointer });
    }
  }
  if (errors.length > 0) throw ApiError.validation(errors);
  return Object.fromEntries(entries) as Variables;
}

function opError(index: number, type: string, msg: string, extra: Record<string, unknown> = {}): ValidationErrorItem {
  return { type, loc: ['body', 'ops', index], msg, pointer: `/ops/${index}`, ...extra } as ValidationErrorItem;
}

/** The ops of a batch, checked for shape before any is applied. */
export function parseOps(input: unknown): Operation[] {
  if (!Array.isArray(input)) {
    throw ApiError.validation([{ type: 'list_type', loc: ['body', 'ops'], msg: 'ops should be a list of RFC 6902 JSON Patch operations', pointer: '/ops' }]);
  }
  if (input.length === 0 || input.length > PROJECT_LIMITS.ops) {
    throw ApiError.validation([{ type: input.length === 0 ? 'too_short' : 'too_long', loc: ['body', 'ops'], msg: `ops should hold 1 to ${PROJECT_LIMITS.ops} operations`, pointer: '/ops' }]);
  }
  const errors: ValidationErrorItem[] = [];
  input.forEach((op: unknown, index) => {
    if (op === null || typeof op !== 'object' || Array.isArray(op)) return errors.push(opError(index, 'model_type', 'An operation should be an object {op, path, …}'));
    const { op: name, path, from } = op as Record<string, unknown>;
    if (!JSON_PATCH_OPS.includes(name as (typeof JSON_PATCH_OPS)[number])) {
      return errors.push(opError(index, 'enum', `"op" should be one of ${JSON_PATCH_OPS.join(', ')}`));
    }
    for (const [field, pointer] of [['path', path], ['from', from]] as const) {
      if (field === 'from' && pointer === undefined && name !== 'move' && name !== 'copy') continue;
      if (typeof pointer !== 'string' || (pointer !== '' && !pointer.startsWith('/'))) {
        return errors.push(opError(index, 'value_error', `"${field}" should be a JSON Pointer ("" or starting with "/")`));
      }
      const keys = pointer.split('/').slice(1).map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'));
      if (keys.some((key) => PROTOTYPE_KEYS.has(key))) return errors.push(opError(index, 'value_error', `"${field}" may not name __proto__, constructor or prototype`));
    }
    if ((name === 'add' || name === 'replace' || name === 'test') && !('value' in (op as object))) {
      return errors.push(opError(index, 'missing', `"${String(name)}" needs a "value"`));
    }
  });
  if (errors.length > 0) throw ApiError.validation(errors);
  return input as Operation[];
}

const PATCH_ERROR_MESSAGES: Partial<Record<string, string>> = {
  TEST_OPERATION_FAILED: 'The "test" operation failed: the value at its path differs; nothing was applied',
  OPERATION_PATH_UNRESOLVABLE: 'The path does not exist in the render request',
  OPERATION_FROM_UNRESOLVABLE: 'The "from" path does not exist in the render request',
  OPERATION_PATH_CANNOT_ADD: 'Cannot add at this path (its parent does not exist)',
  OPERATION_PATH_ILLEGAL_ARRAY_INDEX: 'An array index in the path is not a number or "-"',
  OPERATION_VALUE_OUT_OF_BOUNDS: 'The array index is past the end of the array',
};

function patchErrorMessage(name: string, op: Operation): string | undefined {
  const message = PATCH_ERROR_MESSAGES[name];
  // "replace" (and "test") need the member to exist; "add" is the op that sets a missing one.
  if (name === 'OPERATION_PATH_UNRESOLVABLE' && op.op === 'replace') return `${message}; "replace" needs an existing member, "add" sets a missing one`;
  return message;
}

/**
 * Applies a batch to a copy of the request, all or nothing. An op that cannot apply is a 422 at
 * `/ops/N`; a result that is not a valid template is a 422 naming the op that last wrote the
 * failing place (`pointer` `/ops/N`) and the place itself (`document_pointer`).
 */
export function applyOps(request: Record<string, unknown>, ops: Operation[], defaults: Variables): Record<string, unknown> {
  let patched: unknown = structuredClone(request);
  // One op at a time: the library's own validation reports index 0 for whichever op fails.
  ops.forEach((op, index) => {
    try {
      patched = applyOperation(patched, op, true, true, true, index).newDocument;
    } catch (error) {
      if (!(error instanceof JsonPatchError)) throw error;
      const type = error.name === 'TEST_OPERATION_FAILED' ? 'test_failed' : 'value_error';
      throw ApiError.validation([opError(index, type, patchErrorMessage(error.name, op) ?? error.message.split('\n')[0])]);
    }
  });
  if (patched === null || typeof patched !== 'object' || Array.isArray(patched)) {
    throw ApiError.validation([opError(ops.length - 1, 'model_type', 'The render request must stay an object')]);
  }
  const problems = templateProblems(patched, defaults);
  if (problems.length > 0) {
    throw ApiError.validation(
      problems.map((issue) => {
        const index = opTouching(ops, issue.pointer);
        return opError(index, issue.type, `${issue.msg} (at ${issue.pointer || '/'} of the patched render request)`, { document_pointer: issue.pointer });
      }),
    );
  }
  assertRenderable(patched, defaults, '');
  return patched as Record<string, unknown>;
}

/** The last op whose path (or from) is the failing place, inside it or around it. */
function opTouching(ops: Operation[], pointer: string): number {
  const related = (a: string, b: string) => a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
  for (let i = ops.length - 1; i >= 0; i--) {
    const op = ops[i] as Operation & { from?: string };
    if (op.op === 'test') continue;
    if (related(pointer, op.path) || (op.from !== undefined && related(pointer, op.from))) return i;
  }
  return ops.length - 1;
}
