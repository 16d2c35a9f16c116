import type { Response } from 'express';

/** A submit's status: 202 when it queued a job, 200 when it replays the first answer to the same Idempotency-Key. */
export function submitStatus(replayed: boolean): 200 | 202 {
  return replayed ? 200 : 202;
}

/** Sets a submit's status on the response (a controller's `@Res({ passthrough: true })`) and returns its body. */
export function submitAnswer<T>(res: Response, outcome: { replayed: boolean; body: T }): T {
  res.status(submitStatus(outcome.replayed));
  return outcome.body;
}
