/** A usage window: from `start` (included) to `end` (excluded). */
export interface UsagePeriod {
  start: Date;
  end: Date;
}

/** Calendar month in UTC: the free plan's billing period. */
export function billingPeriod(now = new Date()): UsagePeriod {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}

export function rollingPeriod(days: number, now = new Date()): UsagePeriod {
  return { start: new Date(now.getTime() - days * 86_400_000), end: now };
}
