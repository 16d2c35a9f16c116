/**
 * Seconds until the next automatic attempt after `attemptsMade` attempts (the one that just failed
 * included), or null when the schedule (`WEBHOOK_RETRY_SCHEDULE`, parsed in src/config/) is used up.
 */
export function retryDelayAfter(schedule: readonly number[], attemptsMade: number): number | null {
  return attemptsMade >= 1 && attemptsMade <= schedule.length ? schedule[attemptsMade - 1] : null;
}
