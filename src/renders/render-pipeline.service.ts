import { mkdir, mkdtemp, readFile, rename, rm, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import {
  CompositionProps,
  externalSources,
  MediaInfo,
  RenderRequest,
  resolveRequest,
  ResolvedRequest,
  TranscriptWords,
  validateRenderRequest,
} from '../../composition/src/schema';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { lutProblem } from '../assets/lut-check';
import { MediaIntakeService } from '../assets/media-intake.service';
import { SourceFailure } from '../assets/source-failure';
import { Storage } from '../infra/storage/storage';
import { Job, JobOutput, ProgressStage } from '../jobs/job.entity';
import { QuotaService } from '../jobs/quota.service';
import { PlanCatalogService } from '../workspaces/plan-catalog.service';
import { OutputFormat, planOutput } from './engine/output-formats';
import { probeMedia } from '../infra/media/probe';
import { extensionOfUrl } from '../infra/media/media-types';
import { LoudnessReport, normaliseLoudness } from '../infra/media/loudness';
import { analyseSoundForDucking } from './engine/sound/sound-for-ducking';
import { DrawnFile, PreviewRendererService } from './preview-renderer.service';
import { RemotionRenderer, RenderReport, RenderStage } from './engine/remotion-renderer';
import { diagnosticsOf } from './engine/render-report';
import { capViolations, renderCost } from './render-cost';
import { CaptionSourcesService } from './caption-sources.service';
import { FontFetchError } from '../fonts/font-catalogue.service';
import { FONT_FILE_MAX_BYTES, requestFontFaces, RenderFontsService } from '../fonts/font-files';
import { FontCacheService } from '../fonts/font-cache.service';
import { fontProblem } from '../assets/font-check';
import { RenderFailure } from './render-failure';
import { JobFailure } from '../jobs/job-failure';
import { JobRepository } from '../jobs/job.repository';
import { RENDER_RETRY_LIMIT } from './render-queue';
import { ChunkedRenderService } from './chunks/chunked-render.service';
import { WorkerPresenceService } from './chunks/worker-presence.service';
import { isStorageFull } from '../common/errors/storage-full';
import { storageUnavailableOf } from '../common/errors/storage-unavailable';

export type ProgressReporter = (stage: ProgressStage, percent: number) => void;

export interface RenderedArtifact {
  key: string;
  output: Omit<JobOutput, 'url'>;
  /** How it was drawn and where the time went (recorded on the job's row). */
  /** The plan whole and what was measured (diagnosticsOf), and where the time went; recorded on the job's row. */
  diagnostics: Record<string, unknown> & { pipeline_seconds: PipelineSeconds };
}

/**
 * Seconds of each stage of one render, recorded for every render (jobs.diagnostics). `queue`:
 * created → started (includes copying inputs into storage for `ingest_external`); `inputs`:
 * fetching and probing; `prepare`: sound analysis, the cost check and captions' speech; `draw`:
 * the browser and encoder (and loudness normalisation); `upload`: storing the file. What follows
 * (the completed row, cleanup) is after the report is written: completed_at − started_at − the sum.
 */
export interface PipelineSeconds {
  queue: number;
  inputs: number;
  prepare: number;
  draw: number;
  upload: number;
}

/** Share of the progress bar each stage takes: inputs, speech of captions (when any), frames + encoding, upload. */
const DOWNLOAD_SHARE = [0, 10];
const TRANSCRIBE_SHARE = [10, 30];
const RENDER_SHARE = [10, 95];
const RENDER_AFTER_TRANSCRIBING_SHARE = [30, 95];

/**
 * One render from request to stored artifact: bring every input in once (MediaIntakeService),
 * probe it, serve it to the browser on loopback, render, upload. Testable without the queue.
 */
@Injectable()
export class RenderPipelineService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly intake: MediaIntakeService,
    private readonly storage: Storage,
    private readonly renderer: RemotionRenderer,
    private readonly quota: QuotaService,
    private readonly previews: PreviewRendererService,
    private readonly captions: CaptionSourcesService,
    private readonly chunks: ChunkedRenderService,
    private readonly jobs: JobRepository,
    private readonly plans: PlanCatalogService,
    private readonly presence: WorkerPresenceService,
    private readonly fonts: RenderFontsService,
    private readonly fontCache: FontCacheService,
  ) {}

  async run(job: Job, signal: AbortSignal, report: ProgressReporter): Promise<RenderedArtifact> {
    const clock = stopwatch();
    // The queue is a trust boundary: the stored request is validated again before use.
    const parsed = validateRenderRequest(job.request);
    if (!parsed.ok) throw new RenderFailure('invalid_request', `Stored request is invalid: ${parsed.errors[0].msg}`);
    const request = parsed.value;
    const workRoot = path.join(this.config.dataDir, 'work');
    await mkdir(workRoot, { recursive: true });
    const workDir = await mkdtemp(path.join(workRoot, `${job.id}-`));
    let unmount = () => undefined as void;
    const queue = job.startedAt ? seconds(job.startedAt.getTime() - job.createdAt.getTime()) : 0;
    try {
      const prepared = await this.prepare(job, request, workDir, signal, report, { confirmCost: true });
      unmount = prepared.unmount;
      const { props, resolved, soundAnalysis } = prepared;
      const renderShare = prepared.hasCaptions ? RENDER_AFTER_TRANSCRIBING_SHARE : RENDER_SHARE;
      const onProgress = (stage: RenderStage, fraction: number) => report(stage, lerp(renderShare, fraction));
      const prepare = seconds(clock() * 1000 - prepared.inputsSeconds * 1000);
      const drawn = job.preview
        ? await this.previews.draw(job.preview, { props, media: props.media, resolved, workDir, signal, onProgress })
        : await this.drawFull(job, props, resolved, workDir, signal, onProgress);
      signal.throwIfAborted();
      const loudness = !job.preview && request.audio_normalize ? await this.normalise(request.audio_normalize, drawn, workDir, signal) : undefined;

      const draw = clock();
      report('uploading', RENDER_SHARE[1]);
      const key = `${job.workspaceId}/renders/${job.id}.${drawn.extension}`;
      const { size } = await this.storage.putFile(key, drawn.file, drawn.contentType);
      const drawReport = 'report' in drawn ? (drawn.report as RenderReport) : undefined;
      if (drawReport?.plan.chunks) await this.chunks.discardFiles(job);
      const pipelineSeconds: PipelineSeconds = { queue, inputs: prepared.inputsSeconds, prepare, draw, upload: clock() };
      return {
        key,
        output: {
          width: drawn.width,
          height: drawn.height,
          duration: drawn.duration,
          size_bytes: size,
          ...(loudness ? { loudness } : {}),
          ...(Object.keys(soundAnalysis).length > 0 ? { sound_analysis: soundAnalysis } : {}),
        },
        diagnostics: { ...(drawReport ? diagnosticsOf(drawReport) : {}), pipeline_seconds: pipelineSeconds },
      };
    } catch (error) {
      // A split render that ends for good (cancelled, failing, or on its last attempt) stops its
      // chunks and leaves no chunk files; one the queue will retry keeps those done.
      const lastAttempt = job.attempts > RENDER_RETRY_LIMIT;
      const ends = error instanceof JobFailure || isStorageFull(error) || storageUnavailableOf(error)?.permanent || lastAttempt;
      if (ends || !(await this.jobs.hasStatus(job.id, 'processing'))) await this.chunks.abandon(job);
      throw error;
    } finally {
      unmount();
      await rm(workDir, { recursive: true, force: true });
    }
  }

  /**
   * Everything a render needs before its first frame: each input brought in and probed, served to
   * the browser on loopback, the sound analysed for ducking, captions' words, the timeline resolved.
   * `confirmCost`: the render's real size is checked against its plan and quota (the job's own
   * attempt; a chunk of it does not bill again). The caller unmounts the inputs when done.
   */
  async prepare(
    job: Job,
    request: RenderRequest,
    workDir: string,
    signal: AbortSignal,
    report: ProgressReporter,
    options: { confirmCost: boolean },
  ): Promise<{
    props: CompositionProps;
    resolved: ResolvedRequest;
    soundAnalysis: Awaited<ReturnType<typeof analyseSoundForDucking>>;
    hasCaptions: boolean;
    unmount: () => void;
    /** Seconds spent fetching and probing the inputs. */
    inputsSeconds: number;
  }> {
    const started = performance.now();
    report('downloading', DOWNLOAD_SHARE[0]);
    const inputs = await this.downloadInputs(job, request, workDir, signal, (fraction) => report('downloading', lerp(DOWNLOAD_SHARE, fraction)));
    const fonts = await this.fonts.localFaces(request, workDir, signal).catch((error: Error) => {
      throw error instanceof FontFetchError ? new RenderFailure('source_not_found', error.message) : error;
    });
    await this.renderer.mediaServer.start(); // normally already running since warm-up; idempotent
    const mounted = this.renderer.mediaServer.mount([
      ...inputs.map((i) => ({ file: i.file, contentType: i.contentType })),
      ...fonts.map((face) => ({ file: face.file, contentType: 'font/woff2' })),
    ]);
    const fontFaces = [
      ...fonts.map(({ family, weight, style, unicode_range }, index) => ({ family, weight, style, unicode_range, url: mounted.urls[inputs.length + index] })),
      ...requestFontFaces(request, inputs, mounted.urls),
    ];
    try {
      const media: Record<string, MediaInfo> = {};
      const sources: Record<string, string> = {};
      inputs.forEach((input, index) => {
        media[input.url] = input.info;
        sources[input.url] = mounted.urls[index];
      });
      const inputsSeconds = seconds(performance.now() - started);
      const soundAnalysis = await analyseSoundForDucking(request, inputs, media, signal);
      const hasCaptions = CaptionSourcesService.hasCaptions(request);
      const resolvedForCost = resolveRequest(request, media);
      if (options.confirmCost) await this.assertAffordable(job, request, resolvedForCost);
      let transcripts: TranscriptWords | undefined;
      if (hasCaptions) {
        report('transcribing', TRANSCRIBE_SHARE[0]);
        const fileOf = new Map(inputs.map((input) => [input.url, input.file]));
        transcripts = await this.captions.words(job, request, (url) => fileOf.get(url)!, signal, (fraction) => report('transcribing', lerp(TRANSCRIBE_SHARE, fraction)));
      }
      // Captions' words are part of the composition's input, so a Player given the same props draws the same frames.
      const resolved = transcripts ? resolveRequest(request, media, transcripts) : resolvedForCost;
      const props: CompositionProps = { request, media, sources, ...(transcripts ? { transcripts } : {}), ...(fontFaces.length > 0 ? { fontFaces } : {}) };
      return { props, resolved, soundAnalysis, hasCaptions, unmount: mounted.unmount, inputsSeconds };
    } catch (error) {
      mounted.unmount();
      throw error;
    }
  }

  /** The whole timeline in the requested format. */
  private async drawFull(
    job: Job,
    props: CompositionProps,
    resolved: ResolvedRequest,
    workDir: string,
    signal: AbortSignal,
    onProgress: (stage: RenderStage, fraction: number) => void,
  ): Promise<DrawnFile & { report: RenderReport }> {
    const plan = planOutput(resolved.outputFormat as OutputFormat, resolved.alpha);
    const outputPath = path.join(workDir, `output.${plan.extension}`);
    const args = { props, resolved, plan, outputPath, signal, onProgress };
    // The plan decides everything, chunks included: a long browser-drawn render is split into
    // chunks that any worker can take (chunked-render.service.ts) when other workers are live.
    const renderPlan = await this.renderer.plan(args, plan.kind === 'video' ? await this.presence.liveWorkers() : 1);
    const report = renderPlan.chunks ? await this.chunks.render(job, args, renderPlan) : await this.renderer.render(args, renderPlan);
    const duration = plan.kind === 'still' ? 0 : resolved.durationInFrames / resolved.fps;
    return { file: outputPath, extension: plan.extension, contentType: plan.contentType, width: resolved.width, height: resolved.height, duration, report };
  }

  /**
   * `audio_normalize`: the finished file's mix measured and brought to the target (two loudnorm
   * passes); the file is replaced by the normalised one.
   */
  private async normalise(
    settings: NonNullable<RenderRequest['audio_normalize']>,
    drawn: DrawnFile,
    workDir: string,
    signal: AbortSignal,
  ): Promise<LoudnessReport> {
    const probed = await probeMedia(drawn.file);
    if (!probed?.has_audio) throw new RenderFailure('invalid_request', 'audio_normalize: the render has no sound to normalise (no element is audible)');
    const normalised = path.join(workDir, `normalised.${drawn.extension}`);
    const report = await normaliseLoudness(
      drawn.file,
      normalised,
      { integratedLufs: settings.target_lufs ?? -14, truePeakDb: settings.true_peak_db ?? -1 },
      AUDIO_ENCODERS[drawn.extension] ?? AUDIO_ENCODERS.mp4,
      signal,
    );
    await rename(normalised, drawn.file);
    return report;
  }

  /**
   * Now that every input is probed, the render's real size is known: it must still fit the plan's
   * per-render caps and the month's render minutes (its reservation becomes the real figure), else
   * it fails here, before any frame is drawn.
   */
  private async assertAffordable(job: Job, request: RenderRequest, resolved: ResolvedRequest): Promise<void> {
    const planName = await this.quota.planName(job.workspaceId);
    const cost = renderCost(request, resolved);
    const overCaps = capViolations(cost, this.plans.limits(planName), planName);
    if (overCaps.length > 0) throw new RenderFailure('invalid_request', `With its media probed, the render exceeds its plan: ${overCaps[0].msg}`);
    if (!job.isPreview) await this.quota.confirm('render', job, cost.billedSeconds);
  }

  /**
   * Brings each distinct URL in once (from storage when the service holds it, else through the
   * guarded fetcher) and probes it; failures become the spec's source error codes.
   */
  private async downloadInputs(
    job: Job,
    request: Parameters<typeof externalSources>[0],
    workDir: string,
    signal: AbortSignal,
    progress: (fraction: number) => void,
  ) {
    const distinct = externalSources(request); // one entry per URL
    const inputs: { url: string; file: string; contentType: string; info: MediaInfo; fontFamily?: string | null }[] = [];
    for (const [index, source] of distinct.entries()) {
      const file = path.join(workDir, `input-${index}${extensionOfUrl(source.url)}`);
      let fetched: Awaited<ReturnType<MediaIntakeService['fetchInput']>>;
      try {
        fetched = await this.intake.fetchInput(job, source, file, signal);
      } catch (error) {
        signal.throwIfAborted();
        if (error instanceof SourceFailure) throw new RenderFailure(error.code, error.message);
        throw error;
      }
      const contentType = fetched.contentType;
      if (source.kind === 'font') {
        // Checked at submit; read again, as the file may have changed since.
        const bytes = await readFile(file);
        if (bytes.length > FONT_FILE_MAX_BYTES) throw new RenderFailure('source_too_large', `The font at ${source.pointer} is larger than ${FONT_FILE_MAX_BYTES / 1024 / 1024} MB`);
        const facts = fontProblem(bytes, source.pointer);
        if (facts instanceof SourceFailure) throw new RenderFailure(facts.code, facts.message);
        const extension = { truetype: 'ttf', opentype: 'otf', woff: 'woff', woff2: 'woff2' }[facts.format];
        // An uploaded font already lives in storage as an asset; only fetched ones are kept.
        if (!this.intake.isHosted(source.url)) await this.fontCache.keepCustom(bytes, file, extension, `font/${extension}`);
        inputs.push({ url: source.url, file, contentType: `font/${extension}`, info: {}, fontFamily: facts.family });
        progress((index + 1) / distinct.length);
        continue;
      }
      if (source.kind === 'lut') {
        // Checked at submit; checked again, as the file may have changed since.
        const problem = lutProblem(await readFile(file, 'utf8'), source.pointer);
        if (problem) throw new RenderFailure(problem.code, problem.message);
        inputs.push({ url: source.url, file, contentType: 'text/plain; charset=utf-8', info: {} });
        progress((index + 1) / distinct.length);
        continue;
      }
      const probed = fetched.info ?? (await probeMedia(file));
      if (!probed || (source.kind !== 'image' && source.kind !== 'background' && source.kind !== 'watermark' && !probed.duration)) {
        const size = (await stat(file)).size;
        throw new RenderFailure(
          'codec_unsupported',
          `The file at ${source.pointer} (${size} bytes, ${contentType ?? 'unknown type'}) could not be decoded as ${source.kind}`,
        );
      }
      inputs.push({ url: source.url, file, contentType: contentType ?? 'application/octet-stream', info: probed });
      progress((index + 1) / distinct.length);
    }
    return inputs;
  }
}

/** ffmpeg audio encoder arguments per container, matching what the renderer writes. */
const AUDIO_ENCODERS: Record<string, string[]> = {
  mp4: ['-c:a', 'aac', '-b:a', '320k', '-movflags', '+faststart'],
  mov: ['-c:a', 'aac', '-b:a', '320k'],
  webm: ['-c:a', 'libopus', '-b:a', '192k'],
};

/** Seconds since the previous call (or since it was made), to three decimals. */
function stopwatch(): () => number {
  let last = performance.now();
  return () => {
    const now = performance.now();
    const elapsed = seconds(now - last);
    last = now;
    return elapsed;
  };
}

function seconds(milliseconds: number): number {
  return Math.round(milliseconds) / 1000;
}

function lerp([from, to]: number[], fraction: number): number {
  return Math.round(from + (to - from) * Math.min(1, Math.max(0, fraction)));
}
