import {
  audioCapabilities, catalogueFamilyNames, EMOJI_FAMILIES, FONT_FAMILIES, SCRIPT_FALLBACKS, CANVAS_LIMITS, CATALOGS, elementJsonSchemas, MAX_VIOLATIONS_RETURNED, REQUEST_LIMITS, requestJsonSchema, URL_MAX_LENGTH,
} from '../../composition/src/schema';
import { FONT_FILE_MAX_BYTES } from '../fonts/font-files';
import { OTP_MAX_FAILED_ATTEMPTS, OTP_TTL_MS } from '../auth/otp';
import { PAGE_LIMIT, PAGE_MAX_BYTES } from '../common/pagination/pagination';
import { RATE_LIMITS } from '../common/rate-limit/rate-limits';
import { MCP_TOOL_NAMES } from './mcp-tool-names';
import { previewCapabilities } from '../previews/preview-capabilities';
import { taskCapabilities } from '../tasks/task-types';
import { MAX_FILE_BYTES, UPLOAD_URL_TTL_SECONDS } from '../common/limits';
import type { AppConfig } from '../config/app-config';
import { FREE_PLAN, publishedPlans } from '../config/plans';

/**
 * The unauthenticated machine-readable catalog. Catalogs and JSON Schemas come from the one schema
 * in composition/; every entry says whether the renderer supports it (`supported`, and
 * `x-supported: false` on schema properties that are accepted but not drawn yet).
 */
export function buildCapabilities(version: string, config: AppConfig) {
  const rateLimits = Object.fromEntries(
    Object.entries(RATE_LIMITS)
      .filter(([, rule]) => rule.published)
      .map(([scope, rule]) => [scope, { limit: rule.limit, window_seconds: rule.windowSeconds, per: rule.per }]),
  );
  return {
    version,
    ...CATALOGS,
    ...taskCapabilities(config.transcribe.engine),
    element_schemas: elementJsonSchemas(),
    request_schema: requestJsonSchema(),
    limits: {
      width: CANVAS_LIMITS.size,
      height: CANVAS_LIMITS.size,
      frame_rate: CANVAS_LIMITS.frame_rate,
      url_length: { min: 1, max: URL_MAX_LENGTH },
      source_file_bytes: MAX_FILE_BYTES,
      upload_file_bytes: config.storage.uploadMaxBytes,
      upload_url_lifetime_seconds: UPLOAD_URL_TTL_SECONDS,
      violations_returned: MAX_VIOLATIONS_RETURNED,
      list_limit: { ...PAGE_LIMIT, max_bytes: PAGE_MAX_BYTES },
      request: REQUEST_LIMITS,
      otp_wrong_guesses: OTP_MAX_FAILED_ATTEMPTS,
      otp_lifetime_seconds: OTP_TTL_MS / 1000,
      webhook_response_seconds: config.webhooks.timeoutSeconds,
      free_plan: { render_minutes_per_month: FREE_PLAN.renderMinutesPerMonth, transcribe_minutes_per_month: FREE_PLAN.transcribeMinutesPerMonth, ai_tasks_per_month: null },
      plans: publishedPlans(config.plans),
      default_plan: config.plans.defaultPlan,
      previews_metered: false,
    },
    rate_limits: rateLimits,
    font_catalogue: {
      source: 'Google Fonts families, as the @fontsource packages of an npm registry',
      registry: config.fonts.registryUrl,
      shipped: FONT_FAMILIES,
      script_fallbacks: SCRIPT_FALLBACKS.map((fallback) => ({ family: fallback.family, script: fallback.script })),
      emoji: EMOJI_FAMILIES,
      custom_font_bytes: FONT_FILE_MAX_BYTES,
      families: catalogueFamilyNames(),
    },
    previews: previewCapabilities(),
    audio: audioCapabilities(),
    agents: {
      mcp: {
        url: `${config.publicBaseUrl.replace(/\/$/, '')}/mcp`,
        transport: 'streamable-http',
        auth: 'Authorization: Bearer <API_KEY>',
        tools: MCP_TOOL_NAMES,
        resources: ['vrs://capabilities', 'vrs://skills/{name}'],
        stdio: 'npx vrs mcp (VRS_API_URL, VRS_API_KEY)',
      },
      cli: 'vrs (clients/cli): npx vrs --help',
      llms_txt: ['/llms.txt', '/llms-full.txt'],
    },
    onboarding: {
      summary:
        config.signup.mode === 'closed'
          ? 'Signup is closed on this service: its operator creates workspaces and their first key (admin API); ask them for a key.'
          : `Create a workspace and key without a human: sign up, read the emailed code, verify.${config.signup.emailDomains.length > 0 ? ` Only emails at ${config.signup.emailDomains.join(', ')} may sign up.` : ''}`,
      signup: { mode: config.signup.mode, email_domains: config.signup.emailDomains.length > 0 ? config.signup.emailDomains : null },
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
