/**
 * Plans and everything they allow. The spec's `free` plan is built in; an operator adds plans in
 * PLANS_FILE (src/config/plans-file.ts). The submit checks, the quota service, usage, the queue's
 * per-workspace concurrency and `/v1/capabilities` (limits.plans) all read the one catalog
 * (PlanCatalogService). `null` means unlimited.
 */
export interface PlanLimits {
  /** Completed renders' output minutes a calendar month; queued and running ones are reserved. */
  renderMinutesPerMonth: number | null;
  /** Transcribed audio minutes a calendar month, reserved the same way. */
  transcribeMinutesPerMonth: number | null;
  /** What one render may cost. */
  job: {
    /** Output frames (duration × frame rate). */
    frames: number | null;
    /** Output width × height. */
    pixelsPerFrame: number | null;
    /** frames × pixels per frame: the work the browser and encoder do. */
    pixelFrames: number | null;
    /** Elements of the request. */
    elements: number | null;
    /** Seconds of video and audio the render decodes (the played length of every media element). */
    mediaSeconds: number | null;
  };
  /** How many of each object one workspace may hold or do. */
  workspace: {
    webhooks: number | null;
    apiKeys: number | null;
    /** Upload slots reserved and not yet filled or expired. */
    openUploads: number | null;
    projects: number | null;
    brandKits: number | null;
    /** Renders of one workspace running at once across all workers (the rest wait their turn). */
    concurrentRenders: number | null;
  };
}

export const FREE_PLAN_NAME = 'free';

/** The spec's free plan (part 8 limits), always present. */
export const FREE_PLAN: PlanLimits = {
  renderMinutesPerMonth: 60,
  transcribeMinutesPerMonth: 120,
  job: {
    frames: 18_000, // 10 minutes at 30 fps
    pixelsPerFrame: 3840 * 2160,
    pixelFrames: 1920 * 1080 * 18_000, // 10 minutes of 1080p30
    elements: 300,
    mediaSeconds: 2 * 3600,
  },
  workspace: {
    webhooks: 20,
    apiKeys: 50,
    openUploads: 100,
    projects: 500,
    brandKits: 20,
    concurrentRenders: 2,
  },
};

/** The plans of a deployment: `free` plus those of PLANS_FILE, and the one new workspaces get. */
export interface PlansConfig {
  plans: Record<string, PlanLimits>;
  defaultPlan: string;
}

export const BUILT_IN_PLANS: PlansConfig = { plans: { [FREE_PLAN_NAME]: FREE_PLAN }, defaultPlan: FREE_PLAN_NAME };

/** A plan as PLANS_FILE and `/v1/capabilities` (limits.plans) write it: snake_case. */
export interface PublishedPlan {
  render_minutes_per_month: number | null;
  transcribe_minutes_per_month: number | null;
  job: { frames: number | null; pixels_per_frame: number | null; pixel_frames: number | null; elements: number | null; media_seconds: number | null };
  workspace: {
    webhooks: number | null;
    api_keys: number | null;
    open_uploads: number | null;
    projects: number | null;
    brand_kits: number | null;
    concurrent_renders: number | null;
  };
}

export function publishPlan(plan: PlanLimits): PublishedPlan {
  return {
    render_minutes_per_month: plan.renderMinutesPerMonth,
    transcribe_minutes_per_month: plan.transcribeMinutesPerMonth,
    job: {
      frames: plan.job.frames,
      pixels_per_frame: plan.job.pixelsPerFrame,
      pixel_frames: plan.job.pixelFrames,
      elements: plan.job.elements,
      media_seconds: plan.job.mediaSeconds,
    },
    workspace: {
      webhooks: plan.workspace.webhooks,
      api_keys: plan.workspace.apiKeys,
      open_uploads: plan.workspace.openUploads,
      projects: plan.workspace.projects,
      brand_kits: plan.workspace.brandKits,
      concurrent_renders: plan.workspace.concurrentRenders,
    },
  };
}

export function planFromPublished(plan: PublishedPlan): PlanLimits {
  return {
    renderMinutesPerMonth: plan.render_minutes_per_month,
    transcribeMinutesPerMonth: plan.transcribe_minutes_per_month,
    job: {
      frames: plan.job.frames,
      pixelsPerFrame: plan.job.pixels_per_frame,
      pixelFrames: plan.job.pixel_frames,
      elements: plan.job.elements,
      mediaSeconds: plan.job.media_seconds,
    },
    workspace: {
      webhooks: plan.workspace.webhooks,
      apiKeys: plan.workspace.api_keys,
      openUploads: plan.workspace.open_uploads,
      projects: plan.workspace.projects,
      brandKits: plan.workspace.brand_kits,
      concurrentRenders: plan.workspace.concurrent_renders,
    },
  };
}

/** The plans as `/v1/capabilities` publishes them (snake_case, one entry per plan). */
export function publishedPlans(config: PlansConfig): Record<string, PublishedPlan> {
  return Object.fromEntries(Object.entries(config.plans).map(([name, plan]) => [name, publishPlan(plan)]));
}

/** True when `value` more of something stays within `limit` (null: unlimited). */
export function within(value: number, limit: number | null): boolean {
  return limit === null || value <= limit;
}
