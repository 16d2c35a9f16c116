/**
 * Every rate limit the service enforces, in one table. The per-IP limits of renders, tasks
 * and auth sync are published in /v1/capabilities; the signup ones are not (docs/decisions/0007-rate-limits.md);
 * `webhook_test` bounds the side effects of one workspace (counted by the service, after auth).
 */
export const RATE_LIMITS = {
  auth_sync: { limit: 10, windowSeconds: 3600, per: 'ip', published: true },
  render_submit: { limit: 120, windowSeconds: 60, per: 'ip', published: true },
  task_submit: { limit: 300, windowSeconds: 60, per: 'ip', published: true },
  // POST /v1/preview: free, but a frame or clip still takes a worker; as many as render submits.
  preview: { limit: 120, windowSeconds: 60, per: 'ip', published: true },
  signup_ip: { limit: 20, windowSeconds: 3600, per: 'ip', published: false },
  signup_email: { limit: 5, windowSeconds: 3600, per: 'email', published: false },
  verify_ip: { limit: 30, windowSeconds: 3600, per: 'ip', published: false },
  // The operator's /v1/admin/ routes, counted per address before the key is checked (so guessing it is slow).
  admin: { limit: 300, windowSeconds: 60, per: 'ip', published: false },
  // Each test event makes the service call the caller's endpoint: bounded per workspace.
  webhook_test: { limit: 10, windowSeconds: 60, per: 'workspace', published: true },
} as const;

export type RateLimitScope = keyof typeof RATE_LIMITS;
