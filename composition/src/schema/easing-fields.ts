import { z } from 'zod';
import { easingConflict, type EasingSpec } from '../motion/easing';
import { EASINGS } from './vocabulary';

/**
 * The easing fields accepted wherever an easing is (motions, custom keyframes, group
 * animations): a catalog name plus the optional parameters of spring, back, elastic and bezier
 * curves (see motion/easing.ts for their meaning and defaults).
 */
export const easingFields = {
  easing: z.enum(EASINGS).optional(),
  spring: z
    .strictObject({ mass: z.number().gt(0).optional(), stiffness: z.number().gt(0).optional(), damping: z.number().min(0).optional() })
    .optional()
    .describe('Spring parameters; defaults mass 1, stiffness 100, damping 10'),
  back: z.number().min(0).optional().describe('Overshoot of back easings; default 1.70158'),
  elastic: z
    .strictObject({ amplitude: z.number().min(1).optional(), period: z.number().gt(0).optional() })
    .optional()
    .describe('Elastic parameters; defaults amplitude 1, period 0.3'),
  bezier: z.tuple([z.number().min(0).max(1), z.number(), z.number().min(0).max(1), z.number()]).optional()
    .describe('CSS cubic-bezier control points [x1, y1, x2, y2]; x1 and x2 between 0 and 1'),
};

/** Refuses easing fields that contradict each other (e.g. "back" with easing "cubic_in"). */
export function checkEasing(value: EasingSpec, ctx: z.RefinementCtx): void {
  const conflict = easingConflict(value);
  if (conflict) ctx.addIssue({ code: 'custom', path: ['easing'], message: conflict, params: { type: 'value_error' } });
}
