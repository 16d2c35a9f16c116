import { FontCatalogueService } from '../fonts/font-catalogue.service';
import { submitStatus } from '../common/idempotency/submit-answer';
import { Injectable } from '@nestjs/common';
import {
  findViolations,
  PreviewOptions,
  previewSchema,
  RenderRequest,
  resolveRequest,
  timelineSummary,
  catalogueFamiliesOf,
  validateBodyMember,
  validateRenderRequest,
  type MediaInfo,
  type Violation,
} from '../../composition/src/schema';
import { ApiError } from '../common/errors/api-error';
import { QuotaService } from '../jobs/quota.service';
import { RenderCost, renderCost } from '../renders/render-cost';
import { RendersService, RenderSubmitOut } from '../renders/renders.service';
import { Workspace } from '../workspaces/workspace.entity';
import { DryRunSource, DryRunSourcesService, SourceCheckMode, SourcesReport } from './dry-run-sources.service';

/** What a submit of the same body would answer instead of 202, as data. */
export interface SubmitError {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export interface DryRunOut {
  mode: 'dry_run';
  /** True when a submit would be accepted, no finding is an error and no checked source would fail the render. */
  ok: boolean;
  submit_error: SubmitError | null;
  /** Every finding, never truncated (a submit lists the first 40). */
  violations: Violation[];
  timeline: ReturnType<typeof timelineSummary> | null;
  estimate: ReturnType<typeof estimateOf> | null;
  /** Google Fonts families the render would fetch (not in storage yet). */
  fonts_to_fetch: string[];
  /** Whether every source was checked: `ok` says nothing of a source not checked. */
  sources_checked: 'all' | 'some' | 'none';
  sources: DryRunSource[];
  /** Source URL → what the render will measure (length, size, streams), as far as known: `playerPropsFor(request, media)`. */
  media: Record<string, MediaInfo>;
}

export type PreviewOut = { status: 200; body: DryRunOut } | { status: 202 | 200; body: RenderSubmitOut };

/**
 * POST /v1/preview. `dry_run` runs every check of a submit (RendersService.prepare) and reports
 * the outcome as data, writing nothing; its sources are checked and measured by DryRunSourcesService
 * (within a short budget unless `check_sources` says otherwise), and the answer says which were.
 * The other modes submit an `is_preview` render job, which the render pipeline draws with the
 * same composition (docs/architecture.md, "Previews").
 */
@Injectable()
export class PreviewsService {
  constructor(
    private readonly renders: RendersService,
    private readonly quota: QuotaService,
    private readonly sourceChecks: DryRunSourcesService,
    private readonly fonts: FontCatalogueService,
  ) {}

  /**
   * `idempotencyKey` makes a preview job's submit replayable as a render's is (200 with the first
   * answer; 409 for another body). A dry run stores nothing, so its answer is the same either way.
   */
  async preview(workspace: Workspace, body: unknown, idempotencyKey?: string): Promise<PreviewOut> {
    const { preview, request } = splitBody(body);
    if (preview.mode === 'dry_run') {
      const mode = preview.check_sources === undefined ? 'budget' : preview.check_sources ? 'full' : 'none';
      return { status: 200, body: await this.dryRun(workspace, request, mode) };
    }
    const submitted = await this.renders.submit(workspace, request, { preview, idempotencyKey });
    return { status: submitStatus(submitted.replayed), body: submitted.body };
  }

  private async dryRun(workspace: Workspace, request: Record<string, unknown>, checks: SourceCheckMode): Promise<DryRunOut> {
    const sources = new SourcesReport();
    const aboutSources = () => ({ sources_checked: sources.checked, sources: sources.items, media: sources.media });
    try {
      const prepared = await this.renders.prepare(workspace, request, { sources: (ws, parsed) => this.sourceChecks.check(ws, parsed, checks, sources) });
      // A submit's last refusal, from its transaction: the month's render minutes.
      const refused = await this.quota.refusal('render', workspace, prepared.cost.billedSeconds);
      return {
        mode: 'dry_run',
        ok: prepared.ok && refused === null && !sources.renderWouldFail,
        submit_error: refused ? submitErrorOf(refused) : null,
        violations: prepared.violations,
        timeline: timelineSummary(prepared.request, prepared.media),
        estimate: estimateOf(prepared.cost),
        fonts_to_fetch: await this.fonts.toFetch(catalogueFamiliesOf(prepared.request)),
        ...aboutSources(),
      };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      // Refused as a submit would be; what can still be said of a well-formed request is said.
      const parsed = validateRenderRequest(request);
      const valid = parsed.ok ? parsed.value : null;
      sources.notReached(valid);
      return {
        mode: 'dry_run',
        ok: false,
        submit_error: submitErrorOf(error),
        violations: valid ? findViolations(valid, sources.media) : [],
        timeline: valid ? timelineSummary(valid, sources.media) : null,
        estimate: valid ? estimateOf(costOf(valid, sources.media)) : null,
        fonts_to_fetch: valid ? await this.fonts.toFetch(catalogueFamiliesOf(valid)) : [],
        ...aboutSources(),
      };
    }
  }
}

/**
 * The body is a render request plus `preview`. Both parts are checked, and every problem of
 * either is reported in one 422, as for any body.
 */
function splitBody(body: unknown): { preview: PreviewOptions; request: Record<string, unknown> } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw ApiError.validation([{ type: 'model_type', loc: ['body'], msg: 'Input should be an object: a render request with a "preview" object', pointer: '' }]);
  }
  const { preview: _preview, ...request } = body as Record<string, unknown>;
  const checked = validateBodyMember(previewSchema, body as Record<string, unknown>, 'preview');
  if (checked.ok) return { preview: checked.value, request };
  const requestProblems = validateRenderRequest(request);
  throw ApiError.validation([...(requestProblems.ok ? [] : requestProblems.errors), ...checked.errors]);
}

function submitErrorOf(error: ApiError): SubmitError {
  return { status: error.status, code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) };
}

function costOf(request: RenderRequest, media: Record<string, MediaInfo>): RenderCost {
  return renderCost(request, resolveRequest(request, media));
}

/** What the full render would cost: render minutes (0 for a still) and the size the plan caps. */
function estimateOf(cost: RenderCost) {
  return {
    render_minutes: Math.round((cost.billedSeconds / 60) * 1000) / 1000,
    frames: cost.frames,
    pixels_per_frame: cost.pixelsPerFrame,
    pixel_frames: cost.pixelFrames,
    media_seconds: Math.round(cost.mediaSeconds * 1000) / 1000,
  };
}
