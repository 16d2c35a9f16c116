import type { RenderRequest, ResolvedRequest } from '../../composition/src/schema';
import type { ValidationErrorItem } from '../common/errors/api-error';
import { MAX_JOB_ATTEMPT_SECONDS } from '../common/limits';
import type { PlanLimits } from '../config/plans';
import { planOutput } from './engine/output-formats';

/** What one render costs the service, from its resolved timeline. */
export interface RenderCost {
  frames: number;
  pixelsPerFrame: number;
  pixelFrames: number;
  elements: number;
  /** Seconds of video and audio decoded: the played length of every media element. */
  mediaSeconds: number;
  /** What the render-minute quota counts: output seconds (0 for a still). */
  billedSeconds: number;
}

export function renderCost(request: RenderRequest, resolved: ResolvedRequest): RenderCost {
  const still = planOutput(resolved.outputFormat, false).kind === 'still';
  const frames = still ? 1 : resolved.durationInFrames;
  const pixelsPerFrame = resolved.width * resolved.height;
  const mediaSeconds = still
    ? 0
    : resolved.elements
        .filter((element) => element.type === 'video' || element.type === 'audio')
        .reduce((sum, element) => sum + element.durationInFrames / resolved.fps, 0);
  return {
    frames,
    pixelsPerFrame,
    pixelFrames: frames * pixelsPerFrame,
    elements: request.elements?.length ?? 0,
    mediaSeconds,
    billedSeconds: still ? 0 : resolved.durationSeconds,
  };
}

/** One 422 item per per-render cap of the plan the render passes, pointing at the field to change. */
export function capViolations(cost: RenderCost, plan: PlanLimits, planName: string): ValidationErrorItem[] {
  const caps = plan.job;
  const problems: ValidationErrorItem[] = [];
  const add = (field: string, msg: string) =>
    problems.push({ type: 'plan_limit', loc: ['body', field], msg: `${msg} (the ${planName} plan's limit per render)`, pointer: `/${field}` });
  if (caps.frames !== null && cost.frames > caps.frames) add('duration', `The render has ${cost.frames} frames; at most ${caps.frames} are allowed`);
  if (caps.pixelsPerFrame !== null && cost.pixelsPerFrame > caps.pixelsPerFrame) {
    add('width', `The frame has ${cost.pixelsPerFrame} pixels (width × height); at most ${caps.pixelsPerFrame} are allowed`);
  } else if (caps.pixelFrames !== null && cost.pixelFrames > caps.pixelFrames) {
    add('duration', `The render draws ${cost.pixelFrames} pixels in all (width × height × frames); at most ${caps.pixelFrames} are allowed`);
  }
  if (caps.elements !== null && cost.elements > caps.elements) add('elements', `The request has ${cost.elements} elements; at most ${caps.elements} are allowed`);
  if (caps.mediaSeconds !== null && cost.mediaSeconds > caps.mediaSeconds) {
    add('elements', `The render plays ${Math.round(cost.mediaSeconds)} s of video and audio; at most ${caps.mediaSeconds} s are allowed`);
  }
  return problems;
}

/**
 * How long one attempt may run: a floor for start-up and inputs, plus time in proportion to the
 * pixels drawn and the media decoded, with a wide margin over the reference machine's throughput
 * (docs/performance.md). A stuck render ends in minutes, a big one still has hours.
 */
export function runLimitSeconds(cost: RenderCost): number {
  const seconds = 300 + cost.pixelFrames / 3_000_000 + cost.mediaSeconds * 2;
  return Math.min(MAX_JOB_ATTEMPT_SECONDS, Math.ceil(seconds));
}
