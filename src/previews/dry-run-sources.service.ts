import { checkFont } from '../assets/font-check';
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { externalSources, type ExternalSource, type MediaInfo, type RenderRequest } from '../../composition/src/schema';
import { RenderIntake, MediaIntakeService } from '../assets/media-intake.service';
import { checkLut } from '../assets/lut-check';
import { checkSource } from '../assets/source-checks';
import { SourceFailure, sourceFailureOf } from '../assets/source-failure';
import { ApiError } from '../common/errors/api-error';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { FetchError, GuardedFetcher } from '../infra/http/guarded-fetcher';
import { probeMedia } from '../infra/media/probe';
import { extensionOfUrl } from '../infra/media/media-types';
import { Workspace } from '../workspaces/workspace.entity';

/** How long a dry run without `check_sources` waits for its source checks; the rest is reported unchecked. */
export const DRY_RUN_SOURCE_BUDGET_MS = 3_000;
/** A source is measured (downloaded and probed, as the render does) up to this size and time. */
export const DRY_RUN_MEASURE_MAX_BYTES = 100 * 1024 * 1024;
const MEASURE_TIMEOUT_MS = 20_000;
/** Downloads for measuring at once in this process; the others wait their turn (and may miss the budget). */
const MEASURE_CONCURRENCY = 4;
/** How long a check's outcome is reused: a good answer for a while, a failure briefly (the host may be fixed). */
const KEEP_GOOD_MS = 5 * 60_000;
const KEEP_FAILED_MS = 15_000;
const CACHE_ENTRIES = 1_000;

/** `none`: nothing read (`check_sources: false`); `budget`: the default, within DRY_RUN_SOURCE_BUDGET_MS; `full`: as long as a submit takes. */
export type SourceCheckMode = 'none' | 'budget' | 'full';

export interface DryRunSource {
  pointer: string;
  url: string;
  kind: ExternalSource['kind'];
  /** `ok` and `failed`: the submit's check of this source ran; `not_checked`: it did not (see `note`). */
  status: 'ok' | 'failed' | 'not_checked';
  /** What the check found wrong (a submit's 422), or what the render would fail with (`codec_unsupported`). */
  error: { code: string; message: string } | null;
  /** Its length and size are in the answer's `media`, as the render will measure them. */
  measured: boolean;
  note: string | null;
}

/** What a dry run learnt of its sources: filled while the checks run, read once they end. */
export class SourcesReport {
  items: DryRunSource[] = [];
  media: Record<string, MediaInfo> = {};
  /** False while the checks have not started (the request was refused before its sources). */
  reached = false;

  get checked(): 'all' | 'some' | 'none' {
    const done = this.items.filter((item) => item.status !== 'not_checked').length;
    if (!this.reached) return 'none';
    return done === this.items.length ? 'all' : done === 0 ? 'none' : 'some';
  }

  /** The sources of a request refused before they were checked, listed as such. */
  notReached(request: RenderRequest | null): void {
    if (this.reached || !request) return;
    this.items = externalSources(request).map((source) => item(source, 'not_checked', { note: 'Not checked: a submit refuses this request before it reads its sources' }));
  }

  /** A checked source that would fail the render although the submit accepts it (an undecodable file). */
  get renderWouldFail(): boolean {
    return this.items.some((item) => item.status === 'failed');
  }
}

type Measurement = { info: MediaInfo } | { problem: { code: string; message: string } } | { unmeasured: string };

/** One source's submit check and, once it passes, its measurement; neither ever rejects for a source's fault. */
interface Checks {
  failure: Promise<ApiError | SourceFailure | null>;
  measurement: Promise<Measurement | null>;
}

/**
 * The sources of a dry run, checked as a submit checks them (the same functions: assets ready,
 * URLs answering through the guarded fetcher, LUTs parsed) and measured as the render measures
 * them (downloaded and probed), so the answer can give the lengths a `<Player>` needs. External
 * checks are kept for a while per workspace and URL: a dry run per keystroke does not fetch per
 * keystroke, and a check that outlives the budget still serves the next dry run.
 */
@Injectable()
export class DryRunSourcesService {
  private readonly kept = new Map<string, { until: number; checks: Checks }>();
  private measuring = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly intake: MediaIntakeService,
    private readonly fetcher: GuardedFetcher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * In place of the submit's source checks (RendersService.prepare's `sources`): fills `report`,
   * then throws the error the submit would throw first, or returns the media known.
   */
  async check(workspace: Workspace, parsed: RenderRequest, mode: SourceCheckMode, report: SourcesReport): Promise<RenderIntake> {
    // The ingest decision and the out_point rule come first, as in a submit.
    const prepared = this.intake.prepareWithoutSources(workspace, parsed);
    const base = { ...prepared, request: await this.intake.withUploadedFontFamilies(workspace.id, prepared.request) };
    const sources = externalSources(base.request);
    report.reached = true;
    if (mode === 'none') {
      report.items = sources.map((source) => item(source, 'not_checked', { note: 'Not checked: check_sources is false' }));
      return base;
    }
    const ingest = base.request.ingest_external === true;
    const copies = ingest ? await this.intake.presentCopies(workspace.id, sources.filter((s) => !this.intake.isHosted(s.url)).map((s) => s.url)) : {};
    const checks = sources.map((source) => this.checksOf(workspace, source, copies[source.url]));
    const settled = await settleWithin<unknown>(checks.flatMap((c): Promise<unknown>[] => [c.failure, c.measurement]), mode === 'budget' ? DRY_RUN_SOURCE_BUDGET_MS : null);
    const failures = sources.map((_, index) => settled[2 * index] as ApiError | SourceFailure | null | undefined);

    const late = `within the dry run's ${DRY_RUN_SOURCE_BUDGET_MS / 1000} s; the check goes on and the next dry run uses it (check_sources: true waits for it)`;
    sources.forEach((source, index) => {
      const failure = failures[index];
      const measurement = settled[2 * index + 1] as Measurement | null | undefined;
      if (failure === undefined) {
        report.items.push(item(source, 'not_checked', { note: `Not checked ${late}` }));
      } else if (failure) {
        report.items.push(item(source, 'failed', { error: { code: failure.code, message: failure.message } }));
      } else if (measurement && 'info' in measurement) {
        report.media[source.url] = measurement.info;
        report.items.push(item(source, 'ok', { measured: true }));
      } else if (measurement && 'problem' in measurement) {
        report.items.push(item(source, 'failed', { error: measurement.problem }));
      } else {
        const note = measurement === undefined ? `Not measured ${late}` : measurement && 'unmeasured' in measurement ? measurement.unmeasured : null;
        report.items.push(item(source, 'ok', { note }));
      }
    });

    // The submit's order: the service's own assets, then external files, then LUTs.
    const firstFailure = (hosted: boolean, lut: boolean) =>
      failures.find((failure, index) => failure && this.intake.isHosted(sources[index].url) === hosted && (sources[index].kind === 'lut' || sources[index].kind === 'font') === lut);
    const first = firstFailure(true, false) ?? firstFailure(false, false) ?? firstFailure(false, true);
    if (first) throw first instanceof ApiError ? first : new ApiError(first.code, first.message, { pointer: first.pointer });
    return { request: base.request, ingest: false, media: { ...report.media } };
  }

  private checksOf(workspace: Workspace, source: ExternalSource, copy: MediaInfo | undefined): Checks {
    // The service's own assets: a database read, never kept (an upload becomes ready at any moment).
    if (this.intake.isHosted(source.url)) {
      const info = this.intake.prepareSource(workspace, source).then(
        (found) => ({ info: found }),
        (error: unknown) => {
          if (error instanceof ApiError) return { error };
          throw error;
        },
      );
      return {
        failure: info.then((got) => ('error' in got ? got.error : null)),
        measurement: info.then((got) => ('info' in got && got.info ? { info: measuredInfo(got.info, source.kind) } : null)),
      };
    }
    if (copy) return { failure: Promise.resolve(null), measurement: Promise.resolve({ info: measuredInfo(copy, source.kind) }) };
    return this.keptChecks(`${workspace.id}\n${source.kind}\n${source.url}`, () => {
      const failure: Promise<ApiError | SourceFailure | null> =
        source.kind === 'lut' ? checkLut(this.fetcher, source) : source.kind === 'font' ? checkFont(this.fetcher, source) : checkSource(this.fetcher, source);
      const measurement = failure.then((failed) => (failed || source.kind === 'lut' || source.kind === 'font' ? null : this.measure(source)));
      return { failure, measurement };
    });
  }

  /** Downloaded through the guarded fetcher and probed by ffprobe, as the render reads its inputs. */
  private async measure(source: ExternalSource): Promise<Measurement> {
    // A finished download hands its slot straight to the next one waiting.
    if (this.measuring >= MEASURE_CONCURRENCY) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.measuring++;
    try {
      return await this.download(source);
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.measuring--;
    }
  }

  private async download(source: ExternalSource): Promise<Measurement> {
    const workDir = path.join(this.config.dataDir, 'work');
    const file = path.join(workDir, `dry-run-${randomBytes(8).toString('hex')}${extensionOfUrl(source.url)}`);
    await mkdir(workDir, { recursive: true });
    try {
      await this.fetcher.downloadToFile(source.url, file, { signal: AbortSignal.timeout(MEASURE_TIMEOUT_MS), maxBytes: DRY_RUN_MEASURE_MAX_BYTES });
      const probed = await probeMedia(file);
      if (!probed || (timed(source.kind) && !probed.duration)) {
        return { problem: { code: 'codec_unsupported', message: `The file at ${source.pointer} could not be decoded as ${source.kind}; a render of it would fail` } };
      }
      return { info: measuredInfo(probed, source.kind) };
    } catch (error) {
      if (error instanceof FetchError && error.reason === 'too_large') {
        return { unmeasured: `Not measured: larger than the ${DRY_RUN_MEASURE_MAX_BYTES / 1024 / 1024} MiB a dry run downloads; the render measures it` };
      }
      if (error instanceof FetchError && ['aborted', 'read_timeout', 'connect_timeout'].includes(error.reason)) {
        return { unmeasured: `Not measured: the download took longer than the ${MEASURE_TIMEOUT_MS / 1000} s a dry run allows; the render measures it` };
      }
      // It answered the check a moment ago: a download failing now is what the render may meet too.
      const failure = sourceFailureOf(error, source.pointer);
      return { problem: { code: failure.code, message: failure.message } };
    } finally {
      await rm(file, { force: true });
    }
  }

  /** One check per key at a time, its outcome kept for a while; the oldest entries go first. */
  private keptChecks(key: string, run: () => Checks): Checks {
    const now = Date.now();
    const known = this.kept.get(key);
    if (known && known.until > now) return known.checks;
    const entry = { until: Number.POSITIVE_INFINITY, checks: run() };
    this.kept.delete(key);
    this.kept.set(key, entry);
    while (this.kept.size > CACHE_ENTRIES) this.kept.delete(this.kept.keys().next().value!);
    Promise.all([entry.checks.failure, entry.checks.measurement]).then(
      ([failure, measurement]) => (entry.until = Date.now() + (failure || (measurement && 'problem' in measurement) ? KEEP_FAILED_MS : KEEP_GOOD_MS)),
      () => this.kept.delete(key),
    );
    return entry.checks;
  }
}

function item(source: ExternalSource, status: DryRunSource['status'], extra: Partial<Pick<DryRunSource, 'error' | 'measured' | 'note'>> = {}): DryRunSource {
  return { pointer: source.pointer, url: source.url, kind: source.kind, status, error: null, measured: false, note: null, ...extra };
}

function timed(kind: ExternalSource['kind']): boolean {
  return kind === 'video' || kind === 'audio';
}

/** What the render's media map holds for this source: lengths of video and audio, sizes of pictures, which streams. */
function measuredInfo(info: MediaInfo, kind: ExternalSource['kind']): MediaInfo {
  const out: MediaInfo = {};
  if (timed(kind) && info.duration !== undefined) out.duration = info.duration;
  if (info.width !== undefined) out.width = info.width;
  if (info.height !== undefined) out.height = info.height;
  if (info.has_video !== undefined) out.has_video = info.has_video;
  if (info.has_audio !== undefined) out.has_audio = info.has_audio;
  return out;
}

/**
 * Each promise's value once settled, or undefined for those still running after `budgetMs` (null:
 * wait for all). A rejection is thrown once the wait ends; one after it is dropped, never unhandled.
 */
async function settleWithin<T>(promises: Promise<T>[], budgetMs: number | null): Promise<(T | undefined)[]> {
  const values: (T | undefined)[] = promises.map(() => undefined);
  let failed: { error: unknown } | null = null;
  const all = Promise.all(
    promises.map((promise, index) =>
      promise.then(
        (value) => (values[index] = value),
        (error: unknown) => (failed ??= { error }),
      ),
    ),
  );
  let timer: NodeJS.Timeout | undefined;
  const late = budgetMs === null ? null : new Promise<void>((resolve) => (timer = setTimeout(resolve, budgetMs)));
  try {
    await (late ? Promise.race([all, late]) : all);
  } finally {
    clearTimeout(timer);
  }
  if (failed) throw (failed as { error: unknown }).error;
  return [...values];
}
