import { z } from 'zod';
import { REQUEST_LIMITS } from './limits';
import { httpUrlProblem, URL_MAX_LENGTH } from './url-rule';

/**
 * Value types shared by the request schema. Units follow Creatomate: numbers are pixels or
 * seconds, strings carry their unit ("50%", "45deg").
 */

export const HEX_COLOR_PATTERN = /^#([0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;
const PERCENT_PATTERN = /^-?\d+(?:\.\d+)?%$/;
const UNSIGNED_PERCENT_PATTERN = /^\d+(?:\.\d+)?%$/;
const DEGREES_PATTERN = /^-?\d+(?:\.\d+)?deg$/;

/** `"50%"` → 50. Only called on strings the schema has already matched. */
export function parsePercent(value: string): number {
  return Number.parseFloat(value);
}

/** `"45deg"` or 45 → 45. */
export function parseDegrees(value: string | number): number {
  return typeof value === 'number' ? value : Number.parseFloat(value);
}

/** A URL the service fetches: the one rule of url-rule.ts. */
export const url = z
  .string()
  // One problem per field: a wrong length stops here, before the URL is parsed.
  .min(1, { abort: true })
  .max(URL_MAX_LENGTH, { abort: true })
  .superRefine((value, ctx) => {
    const problem = httpUrlProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, params: { type: 'url_parsing' } });
  })
  .meta({ format: 'uri' });

/** Longest unit string accepted ("-12345.678%"): a number with its unit is never longer. */
const UNIT_STRING_MAX = 32;

/** An id, a name or a reference to one (element ids, group ids, animation names). */
export const reference = z.string().min(1).max(REQUEST_LIMITS.name_length);

export const color = z.string().max(9).regex(HEX_COLOR_PATTERN, { error: 'Colour should be "#RRGGBB" or "#RRGGBBAA"' });

/** A percent string whose number lies in [min, max]. */
export function percent(min = -Infinity, max = Infinity) {
  const bounds = Number.isFinite(min) && Number.isFinite(max) ? ` between "${min}%" and "${max}%"` : Number.isFinite(min) ? ` of at least "${min}%"` : '';
  return z
    .string()
    .max(UNIT_STRING_MAX)
    .regex(min >= 0 ? UNSIGNED_PERCENT_PATTERN : PERCENT_PATTERN, { error: `Input should be a percent string like "50%"${bounds}`, abort: true })
    .refine((value) => parsePercent(value) >= min && parsePercent(value) <= max, {
      error: `Input should be a percent string${bounds}`,
    });
}

export const seconds = z.number().min(0);
export const positiveSeconds = z.number().gt(0);

/** Pixels (number) or percent (string) of a reference size named by the field's description. */
export const length = z.union([z.number(), percent()], {
  error: 'Input should be a number of pixels or a percent string like "50%"',
});
export const nonNegativeLength = z.union([z.number().min(0), percent(0)], {
  error: 'Input should be a non-negative number of pixels or a percent string like "50%"',
});

export const angle = z.union([z.number(), z.string().max(UNIT_STRING_MAX).regex(DEGREES_PATTERN, { error: 'Input should be a degree string like "45deg"' })], {
  error: 'Input should be a number of degrees or a degree string like "45deg"',
});

/** 0..1 as a number, or "0%".."100%". */
export const fraction = z.union([z.number().min(0).max(1), percent(0, 100)], {
  error: 'Input should be a number from 0 to 1 or a percent string from "0%" to "100%"',
});

/** `"50%"` or 0.5 → 0.5. */
export function toFraction(value: number | string): number {
  return typeof value === 'number' ? value : parsePercent(value) / 100;
}

export const point = z.strictObject({ x: length, y: length });
