/** docs/decisions/0009-webhooks.md: retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, so 8 attempts in all. */
export const DEFAULT_RETRY_SCHEDULE_SECONDS: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 36000];

/**
 * pg-boss drops a job still waiting after its retention (14 days by default); a delay far below
 * that keeps every scheduled retry alive.
 */
export const MAX_RETRY_DELAY_SECONDS = 7 * 24 * 3600;
const MAX_RETRIES = 20;

/**
 * `WEBHOOK_RETRY_SCHEDULE`: comma-separated delays in seconds between one failed attempt and the
 * next. Returns the delays, or a problem for the configuration error list.
 */
export function parseRetrySchedule(raw: string): { delays: number[] } | { problem: string } {
  const parts = raw.split(',').map((part) => part.trim());
  const invalid = parts.filter((part) => !/^\d+$/.test(part) || Number(part) > MAX_RETRY_DELAY_SECONDS);
  if (invalid.length > 0) {
    return {
      problem: `WEBHOOK_RETRY_SCHEDULE must be comma-separated whole seconds from 0 to ${MAX_RETRY_DELAY_SECONDS} (got "${raw}")`,
    };
  }
  if (parts.length > MAX_RETRIES) {
    return { problem: `WEBHOOK_RETRY_SCHEDULE allows at most ${MAX_RETRIES} retries (got ${parts.length})` };
  }
  return { delays: parts.map(Number) };
}
