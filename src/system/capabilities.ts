import { CATALOGS, elementJsonSchemas, requestJsonSchema } from '../../composition/src/schema';
import { RATE_LIMITS } from '../common/rate-limit/rate-limits';
import { taskCapabilities } from '../tasks/task-types';
import type { SpeechEngineName } from '../tasks/transcribe/engines/speech-engine';
import { PLANS } from '../workspaces/plans';

/**
 * The unauthenticated machine-readable catalog. Catalogs and JSON Schemas come from the one schema
 * in composition/; every entry says whether the renderer supports it (`supported`, and
 * `x-supported: false` on schema properties that are accepted but not drawn yet).
 */
export function buildCapabilities(version: string, speechEngine: SpeechEngineName) {
  const rateLimits = Object.fromEntries(
    Object.entries(RATE_LIMITS)
      .filter(([, rule]) => rule.published)
      .map(([scope, rule]) => [scope, { limit: rule.limit, window_seconds: rule.windowSeconds, per: rule.per }]),
  );
  return {
    version,
    ...CATALOGS,
    ...taskCapabilities(speechEngine),
    element_schemas: elementJsonSchemas(),
    request_schema: requestJsonSchema(),
    limits: {
      width: { min: 16, max: 8192 },
      height: { min: 16, max: 8192 },
      frame_rate: { min: 1, max: 240, default: 30 },
      url_length: { min: 1, max: 2083 },
      source_file_bytes: 5 * 1024 ** 3,
      upload_url_lifetime_seconds: 3600,
      violations_returned: 40,
      list_limit: { default: 20, min: 1, max: 200 },
      otp_wrong_guesses: 5,
      otp_lifetime_seconds: 900,
      webhook_response_seconds: 10,
      free_plan: { render_minutes_per_month: PLANS.free.renderMinutesPerMonth, ai_tasks_per_month: null },
      previews_metered: false,
    },
    rate_limits: rateLimits,
    onboarding: {
      summary: 'Create a workspace and key without a human: sign up, read the emailed code, verify.',
      steps: [
        { method: 'POST', path: '/v1/signup', body: { workspace_name: 'string', email: 'string' }, returns: '201 {workspace, api_key: {id, key, …}, verification}' },
        { method: 'POST', path: '/v1/signup/verify', auth: 'Bearer <the key signup returned>', body: { email: 'string', code: '6 digits' }, returns: '200 workspace; the key now works' },
        { method: 'GET', path: '/v1/skills', auth: 'Bearer <key>', returns: 'guides for agents and developers' },
      ],
      alternatives: [{ method: 'POST', path: '/v1/auth/sync', body: { id_token: 'OIDC ID token' } }],
      gated_error: 'email_not_verified (403) until verified',
    },
  };
}
