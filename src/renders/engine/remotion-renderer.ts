import * as os from 'node:os';
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { MetricsService } from '../../metrics/metrics.service';
import { BrowserHost } from './browser/browser-host';
import { DEFAULT_STITCH } from './encode/stitch-settings';
import { executePlan } from './executor';
import { MediaServer } from './media-server';
import { planRender, type PlannerConfig } from './planner/plan-render';
import type { RenderPlan } from './planner/render-plan';
import { NO_FACTS } from './planner/source-facts';
import { probeSources } from './probe-sources';
import type { RenderArgs, StillsArgs } from './render-args';
import type { RenderReport, SoundPath } from './render-report';
import { SoundMaker } from './sound/sound-maker';

export type { RenderArgs, RenderStage, StillsArgs } from './render-args';
export type { RenderReport, SoundPath } from './render-report';

/**
 * The render engine as the rest of the service sees it: one composition bundle and one warm
 * browser per worker process (BrowserHost), the loopback media server, and for each render a plan
 * (planner/plan-render.ts, the only place a path is chosen) carried out by the executor.
 */
@Injectable()
export class RemotionRenderer implements OnModuleDestroy {
  readonly mediaServer = new MediaServer();
  private readonly browser: BrowserHost;
  private readonly sound: SoundMaker;
  private warm = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {
    this.browser = new BrowserHost(config.render);
    this.sound = new SoundMaker(config.render, this.browser, this.mediaServer);
  }

  /** Bundles (or finds the bundle) and opens the browser ahead of the first job. */
  async warmUp(): Promise<void> {
    await Promise.all([this.browser.serveUrl(), this.browser.openBrowser(), this.mediaServer.start()]);
    this.warm = true;
  }

  /**
   * Readiness of a worker: warm-up succeeded once (bundle found, browser opened). A browser closed
   * after a render error is reopened by the next render, so it does not make the worker unready.
   */
  async ready(): Promise<boolean> {
    return this.warm;
  }

  /** The plan of a render: its sources probed where the plan depends on them, then planRender; `workers`: live worker processes (WorkerPresenceService). */
  async plan(args: RenderArgs, workers = 1): Promise<RenderPlan> {
    const render = this.config.render;
    const whole = args.plan.kind === 'video' && !args.frameRange && (args.scale ?? 1) === 1;
    const facts = whole
      ? await probeSources(args.props, args.resolved, (url) => this.mediaServer.fileAt(url), {
          pictures: render.compositeMedia && args.plan.kind === 'video' && args.plan.codec === 'h264',
          sounds: render.mixSound && !args.muted,
          signal: args.signal,
        })
      : NO_FACTS;
    return planRender({ ...args, output: args.plan, workers }, facts, plannerConfig(render));
  }

  /** Renders as `plan` says (planned here when not given). */
  async render(args: RenderArgs, plan?: RenderPlan): Promise<RenderReport> {
    return executePlan({ browser: this.browser, sound: this.sound, metrics: this.metrics }, args, plan ?? (await this.plan(args)));
  }

  /** Chosen frames as images (a contact sheet's tiles), drawn as a render draws them. */
  stills(args: StillsArgs): Promise<void> {
    return this.browser.stills(args);
  }

  /** The whole timeline's sound as a WAV at `outputPath` (SoundMaker.soundTrack; `via` forces one way). */
  soundTrack(args: Pick<RenderArgs, 'props' | 'resolved' | 'outputPath' | 'signal'>, via?: SoundPath): Promise<{ sound_path: SoundPath; sound_fallback?: string }> {
    return this.sound.soundTrack(args, via);
  }

  /** The sound a plan makes beside its pictures (a chunked render's parent), written to `audioPath` and encoded to AAC; null when none. */
  makeSound(args: Pick<RenderArgs, 'props' | 'resolved' | 'signal'>, plan: RenderPlan, audioPath: string) {
    return this.sound.make(args, plan.sound, audioPath);
  }

  /** Waits for a warm-up under way, so no bundling or browser outlives the application. */
  async onModuleDestroy(): Promise<void> {
    await Promise.all([this.browser.shutDown(), this.mediaServer.stop()]);
  }
}

/** The planner's inputs from the configuration (RENDER_*), with the machine's cores. */
export function plannerConfig(render: AppConfig['render']): PlannerConfig {
  return {
    holdFrames: render.holdFrames,
    blendFades: render.blendFades,
    skipPictures: render.skipPictures,
    mixSound: render.mixSound,
    warmStills: render.warmStills,
    compositeMedia: render.compositeMedia,
    chunkFrames: render.chunkFrames,
    chunkSplit: render.chunkSplit,
    tabs: render.tabs,
    cores: os.availableParallelism(),
    x264Preset: render.x264Preset,
    x264Crf: render.x264Crf,
    stitch: DEFAULT_STITCH,
    jpegQuality: render.jpegQuality,
    beginFrame: render.beginFrame,
    strategy: render.strategy,
  };
}
