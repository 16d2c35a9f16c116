import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { ApiError, ValidationErrorItem } from '../errors/api-error';
import { jsonPointer } from './suggest';

/** docs/decisions/0003-errors.md: JSON nested deeper than this is refused on every route. */
export const MAX_JSON_DEPTH = 64;

/** Names that reach an object's prototype when a library assigns them as properties. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Entries of one JSON array or object. Ten times the longest list any schema allows (1 000
 * elements): the schemas' own caps run only after every entry has been validated, which for a
 * megabyte of tiny entries takes seconds of the event loop.
 */
export const MAX_JSON_ENTRIES = 10_000;

/** A hostile body reports at most this many items: enough to fix it, never a huge answer. */
const MAX_ITEMS = 20;

/** Body-parser failures this module raises; AllExceptionsFilter turns each `type` into a 422. */
export class BodyRejected extends Error {
  constructor(
    readonly type: 'entity.invalid.utf8' | 'entity.too.deep' | 'charset.unsupported',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Runs on the raw bytes before JSON.parse (body-parser's `verify`): the body must be UTF-8 (RFC
 * 8259; invalid sequences and encoded surrogates would otherwise turn silently into U+FFFD), and
 * no deeper than MAX_JSON_DEPTH, checked by counting brackets outside strings so that neither the
 * parser nor any validator ever recurses through an arbitrarily deep document.
 */
export function verifyJsonBytes(_req: IncomingMessage, _res: ServerResponse, body: Buffer, encoding: string | null): void {
  if (encoding !== null && !/^utf-?8$/i.test(encoding)) {
    throw new BodyRejected('charset.unsupported', `JSON bodies must be UTF-8 (got charset "${encoding}")`);
  }
  if (!isUtf8(body)) throw new BodyRejected('entity.invalid.utf8', 'The body is not valid UTF-8');
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i];
    if (inString) {
      if (byte === 0x5c) i++; // backslash: the next byte is escaped
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) {
      inString = true;
    } else if (byte === 0x7b || byte === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) {
        throw new BodyRejected('entity.too.deep', `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`);
      }
    } else if (byte === 0x7d || byte === 0x5d) {
      depth--;
    }
  }
}

interface Frame {
  value: unknown;
  path: (string | number)[];
}

/**
 * Every parsed JSON body, query string and path, before any guard, pipe or route sees them: no
 * NUL character (PostgreSQL text cannot hold it), no lone UTF-16 surrogate (not a character; it
 * cannot be stored or encoded faithfully), no `__proto__`/`constructor`/`prototype` key (refused
 * like any unknown field, before a library can assign it), and no body that is not JSON except on
 * `takesRawBody` routes (uploads of file bytes). One 422 names every offending pointer.
 */
export function hostileInputGuard(takesRawBody: (req: Request) => boolean) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const items: ValidationErrorItem[] = [];
    checkPath(req, items);
    checkQuery(req, items);
    if (req.body !== undefined && req.body !== null && typeof req.body === 'object') checkBody(req.body, items);
    else if (hasBody(req) && !takesRawBody(req)) {
      // Bodies are JSON; one of another type would otherwise be ignored without a word.
      items.push({
        type: 'content_type',
        loc: ['header', 'content-type'],
        msg: `Request bodies must be JSON (Content-Type: application/json), not ${req.headers['content-type'] ?? 'untyped'}`,
        pointer: '',
      });
    }
    next(items.length > 0 ? ApiError.validation(items.slice(0, MAX_ITEMS)) : undefined);
  };
}

/** As HTTP/1.1 frames a body: chunked, or a non-zero Content-Length. */
function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function checkPath(req: Request, items: ValidationErrorItem[]): void {
  for (const segment of req.path.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      items.push({ type: 'string_unicode', loc: ['path'], msg: `The path segment "${segment}" is not valid percent-encoded UTF-8`, pointer: '' });
      return;
    }
    const problem = stringProblem(decoded);
    if (problem) {
      items.push({ type: problem.type, loc: ['path'], msg: `The path ${problem.msg}`, pointer: '' });
      return;
    }
  }
}

function checkQuery(req: Request, items: ValidationErrorItem[]): void {
  // The query parser turns bad percent-encoding into U+FFFD without a word; the raw string must decode.
  const raw = req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '';
  for (const part of raw.split(/[&=]/)) {
    try {
      decodeURIComponent(part.replace(/\+/g, ' '));
    } catch {
      items.push({ type: 'string_unicode', loc: ['query'], msg: `The query part "${part.slice(0, 100)}" is not valid percent-encoded UTF-8`, pointer: '' });
      return;
    }
  }
  const query = req.query as Record<string, unknown>;
  for (const key of Object.keys(query)) {
    const keyProblem = keyProblemOf(key);
    if (keyProblem) {
      items.push({ type: keyProblem.type, loc: ['query', key], msg: keyProblem.msg, pointer: '' });
      continue;
    }
    const values = Array.isArray(query[key]) ? (query[key] as unknown[]) : [query[key]];
    for (const value of values) {
      const problem = typeof value === 'string' ? stringProblem(value) : null;
      if (problem) {
        items.push({ type: problem.type, loc: ['query', key], msg: `Query parameter "${key}" ${problem.msg}`, pointer: '' });
        break;
      }
    }
  }
}

/** Iterative: the depth was bounded on the bytes, but a walk should not need the stack anyway. */
function checkBody(body: object, items: ValidationErrorItem[]): void {
  const stack: Frame[] = [{ value: body, path: [] }];
  while (stack.length > 0 && items.length < MAX_ITEMS) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = stringProblem(value);
      if (problem) items.push({ type: problem.type, loc: ['body', ...path], msg: `The string ${problem.msg}`, pointer: jsonPointer(path) });
    } else if (Array.isArray(value)) {
      if (value.length > MAX_JSON_ENTRIES) {
        items.push(tooMany(path, `The list has ${value.length} items; at most ${MAX_JSON_ENTRIES} are accepted`));
        continue;
      }
      for (let i = value.length - 1; i >= 0; i--) {
        const item = value[i];
        if (item !== null && (typeof item === 'object' || typeof item === 'string')) stack.push({ value: item, path: [...path, i] });
      }
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      if (keys.length > MAX_JSON_ENTRIES) {
        items.push(tooMany(path, `The object has ${keys.length} fields; at most ${MAX_JSON_ENTRIES} are accepted`));
        continue;
      }
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i];
        const here = [...path, key];
        const problem = keyProblemOf(key);
        if (problem) {
          items.push({ type: problem.type, loc: ['body', ...here], msg: problem.msg, pointer: jsonPointer(here) });
          continue;
        }
        const item = (value as Record<string, unknown>)[key];
        if (item !== null && (typeof item === 'object' || typeof item === 'string')) stack.push({ value: item, path: here });
      }
    }
  }
}

function tooMany(path: (string | number)[], msg: string): ValidationErrorItem {
  return { type: 'too_long', loc: ['body', ...path], msg, pointer: jsonPointer(path) };
}

function keyProblemOf(key: string): { type: string; msg: string } | null {
  if (PROTOTYPE_KEYS.has(key)) return { type: 'extra_forbidden', msg: `Unknown field "${key}"; "${key}" is never a field name here` };
  const problem = stringProblem(key);
  return problem ? { type: problem.type, msg: `The field name ${problem.msg}` } : null;
}

/** ES2024, in Node since 20; the project's TypeScript lib is ES2023. */
interface WellFormedCheck {
  isWellFormed(): boolean;
}

function stringProblem(value: string): { type: string; msg: string } | null {
  if (value.includes('\u0000')) return { type: 'string_nul', msg: 'contains the NUL character (U+0000), which is not allowed' };
  if (!(value as unknown as WellFormedCheck).isWellFormed()) {
    return { type: 'string_unicode', msg: 'contains a lone UTF-16 surrogate (\\ud800-\\udfff without its pair), which is not a character' };
  }
  return null;
}
