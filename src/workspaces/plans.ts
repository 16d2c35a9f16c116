/**
 * Plans and everything they allow, defined once: the submit checks, the quota service, usage and
 * `/v1/capabilities` (limits.plans) all read this table. Only the free plan exists so far; a new
 * plan is a new row.
 */
export interface PlanLimits {
  /** Completed renders' output minutes a calendar month; queued and running ones are reserved. */
  renderMinutesPerMonth: number;
  /** Transcribed audio minutes a calendar month, reserved the same way. */
  transcribeMinutesPerMonth: number;
  /** What one render may cost. */
  job: {
    /** Output frames (duration × frame rate). */
    frames: number;
    /** Output width × height. */
    pixelsPerFrame: number;
    /** frames × pixels per frame: the work the browser and encoder do. */
    pixelFrames: number;
    /** Elements of the request. */
    elements: number;
    /** Seconds of video and audio the render decodes (the played length of every media element). */
    mediaSeconds: number;
  };
  /** How many of each object one workspace may hold or do. */
  workspace: {
    webhooks: number;
    apiKeys: number;
    /** Upload slots reserved and not yet filled or expired. */
    openUploads: number;
    projects: number;
    brandKits: number;
    /** Renders of one workspace running at once across all workers (the rest wait their turn). */
    concurrentRenders: number;
  };
}

export const PLANS = {
  free: {
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
  },
} as const satisfies Record<string, PlanLimits>;

export type PlanName = keyof typeof PLANS;

export function planOf(name: string): PlanLimits {
  return PLANS[(name in PLANS ? name : 'free') as PlanName];
}

/** The plans as `/v1/capabilities` publishes them (snake_case, one entry per plan). */
export function publishedPlans() {
  return Object.fromEntries(
    Object.entries(PLANS).map(([name, plan]: [string, PlanLimits]) => [
      name,
      {
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
      },
    ]),
  );
}
