import { DRY_RUN_SOURCE_BUDGET_MS } from './dry-run-sources.service';
import { PREVIEW_DEFAULT_SCALE, PREVIEW_LIMITS, previewRequestJsonSchema } from '../../composition/src/schema';

/** The `previews` entry of GET /v1/capabilities: the modes, their defaults and limits, the schema of `preview`. */
export function previewCapabilities() {
  const body = previewRequestJsonSchema() as { properties: Record<string, unknown> };
  return {
    route: 'POST /v1/preview',
    metered: false,
    rate_limit: 'preview',
    follow_jobs_with: 'GET /v1/renders/{id} (and its webhooks); preview jobs are never listed by GET /v1/renders',
    modes: {
      dry_run: {
        answer: '200 {ok, submit_error, violations (all), timeline, estimate, sources_checked, sources, media}; nothing stored',
        sources_checked: `check_sources omitted: within ${DRY_RUN_SOURCE_BUDGET_MS / 1000} s (the rest not_checked); true: all; false: none`,
      },
      frame: { answer: '202 preview job; output png or jpg', default_scale: PREVIEW_DEFAULT_SCALE.frame },
      clip: {
        answer: '202 preview job; output mp4',
        default_scale: PREVIEW_DEFAULT_SCALE.clip,
        max_seconds: PREVIEW_LIMITS.clip_seconds,
        frame_rate: PREVIEW_LIMITS.clip_frame_rate,
      },
      contact_sheet: { answer: '202 preview job; output png or jpg, tiles labelled with their time', default_scale: PREVIEW_DEFAULT_SCALE.contact_sheet, count: PREVIEW_LIMITS.contact_sheet_count },
    },
    limits: PREVIEW_LIMITS,
    preview_schema: body.properties.preview,
  };
}
