import type { HeadlessBrowser } from '@remotion/renderer';
import { NoReactInternals } from 'remotion/no-react';
import { loadBundle, remotionSteps, serveBundle, setComposition, TIMEOUT_MS, type BundleServer, type PageComposition, type RemotionPage, type RemotionSteps } from './remotion-steps';

/**
 * Chromium flag a browser needs before any of its tabs can be driven by BeginFrame control
 * (HeadlessExperimental.beginFrame refuses without it); tabs not created for it draw as before.
 */
export const BEGIN_FRAME_BROWSER_FLAGS = ['--run-all-compositor-stages-before-draw'];

export interface BeginFrameCaptureArgs {
  browser: HeadlessBrowser;
  /** The composition bundle's folder. */
  bundleDir: string;
  composition: PageComposition;
  format: 'jpeg' | 'png';
  jpegQuality?: number;
  signal: AbortSignal;
}

interface CdpSession {
  send(method: string, params?: Record<string, unknown>): Promise<unknown>;
}

interface BeginFrameResult {
  hasDamage?: boolean;
  screenshotData?: string;
}

/**
 * Frames captured through Chromium's BeginFrame control (HeadlessExperimental.beginFrame, as
 * HyperFrames captures): the tab is created with `enableBeginFrameControl`, so it draws only when
 * a frame is begun, and the frame begun with a screenshot returns its picture in the same call;
 * no screenshot round trip after the page settles, as Remotion's Page.captureScreenshot makes.
 * Remotion's page is driven as the warm still page drives it (bundle, props, its set-frame
 * function, its readiness check). Its readiness polls on animation frames and timers, which run
 * only while frames are begun: frames without display updates are begun while anything is awaited
 * on the page, then one with the screenshot. One session draws frames one after the other; `close`
 * ends it.
 */
export class BeginFrameCapture {
  private previous: Buffer | null = null;
  private pumping: Promise<void> | null = null;
  private pumpStop = false;
  private failure: Error | null = null;
  private readonly serializedProps: string;

  private constructor(
    private readonly args: BeginFrameCaptureArgs,
    private readonly steps: RemotionSteps,
    private readonly server: BundleServer,
    private readonly page: RemotionPage,
    private readonly cdp: CdpSession,
    private readonly stopErrors: () => Promise<void>,
  ) {
    this.serializedProps = NoReactInternals.serializeJSONWithSpecialTypes({ data: args.composition.props, indent: undefined, staticBase: null }).serializedString;
  }

  /** A tab with the bundle loaded and the composition set, ready for `frame()`. */
  static async open(args: BeginFrameCaptureArgs): Promise<BeginFrameCapture> {
    const steps = remotionSteps();
    const server = await serveBundle(steps, args.bundleDir);
    let capture: BeginFrameCapture | null = null;
    let page: RemotionPage | null = null;
    try {
      const { width, height } = args.composition;
      const browser = args.browser as unknown as RemotionBrowser;
      const created = unwrap<{ targetId: string }>(await browser.connection.send('Target.createTarget', { url: 'about:blank', enableBeginFrameControl: true, width, height }));
      const target = await browser.waitForTarget((candidate) => candidate._targetId === created.targetId, { timeout: TIMEOUT_MS });
      page = (await target.page({ sourceMapGetter: server.sourceMap, logLevel: 'error', indent: false, pageIndex: 0, onBrowserLog: null, onLog: steps.defaultOnLog })) as RemotionPage | null;
      if (!page) throw new Error('BeginFrame capture: no page for the new target');
      const opened = page;
      const cdp = (opened as unknown as { _client(): CdpSession })._client();
      await cdp.send('HeadlessExperimental.enable');
      let onError: (error: Error) => void = () => undefined;
      const stopErrors = steps.handleJavascriptException({ page: opened, onError: (error) => onError(error), frame: null });
      capture = new BeginFrameCapture(args, steps, server, opened, cdp, stopErrors);
      const made = capture;
      onError = (error) => (made.failure ??= error);
      await capture.whilePumping(async () => {
        await opened.setViewport({ width, height, deviceScaleFactor: 1 });
        await loadBundle(steps, opened, server);
        await setComposition(steps, opened, args.composition, made.serializedProps);
        // As Remotion's takeFrame before each screenshot: the body's own colour never shows.
        await steps.puppeteerEvaluateWithCatch({
          pageFunction: ((background: string) => {
            (globalThis as unknown as { document: { body: { style: { background: string } } } }).document.body.style.background = background;
          }) as (...args: never[]) => unknown,
          args: [args.format === 'png' ? 'transparent' : 'black'],
          frame: null,
          page: opened,
          timeoutInMilliseconds: TIMEOUT_MS,
        });
      });
      // As Remotion's PNG screenshots: what the page leaves unpainted stays transparent (set after the page's set-up, which resets it).
      if (args.format === 'png') await cdp.send('Emulation.setDefaultBackgroundColorOverride', { color: { r: 0, g: 0, b: 0, a: 0 } });
      return capture;
    } catch (error) {
      if (capture) await capture.close();
      else {
        await page?.close().catch(() => undefined);
        await server.closeServer(false).catch(() => undefined);
      }
      throw error;
    }
  }

  /** The picture of `frame`: the page seeks to it (frames begun meanwhile), then one frame begun with the screenshot. */
  async frame(frame: number): Promise<Buffer> {
    this.args.signal.throwIfAborted();
    const { composition } = this.args;
    await this.whilePumping(() =>
      this.steps.seekToFrame({ frame, page: this.page, composition: composition.id, timeoutInMilliseconds: TIMEOUT_MS, indent: false, logLevel: 'error', attempt: 0 }),
    );
    const screenshot = this.args.format === 'jpeg' ? { format: 'jpeg', quality: this.args.jpegQuality ?? 90 } : { format: 'png' };
    const result = unwrap<BeginFrameResult>(await this.cdp.send('HeadlessExperimental.beginFrame', { screenshot }));
    if (this.failure) throw this.failure;
    // No picture: nothing on screen changed since the frame before, whose picture stands.
    const picture = result.screenshotData ? Buffer.from(result.screenshotData, 'base64') : this.previous;
    if (!picture) throw new Error(`BeginFrame capture: frame ${frame} returned no picture`);
    this.previous = picture;
    return picture;
  }

  async close(): Promise<void> {
    await this.stopPump();
    await this.stopErrors().catch(() => undefined);
    await this.page.close().catch(() => undefined);
    await this.server.closeServer(false).catch(() => undefined);
  }

  /**
   * `work` with frames begun (no display updates) until it settles, so the page's timers,
   * animation frames and loading advance; the abort signal and the page's uncaught errors end it.
   */
  private async whilePumping<T>(work: () => Promise<T>): Promise<T> {
    this.pumpStop = false;
    this.pumping = this.pump();
    const { signal } = this.args;
    let onAbort = () => undefined as void;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason ?? new Error('aborted'));
      signal.addEventListener('abort', onAbort, { once: true });
    });
    let result: T;
    try {
      result = await Promise.race([work(), aborted]);
    } finally {
      signal.removeEventListener('abort', onAbort);
      await this.stopPump();
    }
    // A page error during the work is the failure, even when the work itself resolved.
    if (this.failure) throw this.failure;
    return result;
  }

  private async pump(): Promise<void> {
    while (!this.pumpStop) {
      try {
        await this.cdp.send('HeadlessExperimental.beginFrame', { noDisplayUpdates: true });
      } catch (error) {
        // A page navigating or closing refuses frames for a moment; the awaited work reports real failures.
        if (this.pumpStop) return;
        await new Promise((resolve) => setTimeout(resolve, 5));
        void error;
      }
    }
  }

  private async stopPump(): Promise<void> {
    this.pumpStop = true;
    await this.pumping;
    this.pumping = null;
  }
}

interface RemotionTarget {
  _targetId: string;
  page(options: Record<string, unknown>): Promise<unknown>;
}

interface RemotionBrowser {
  connection: CdpSession;
  waitForTarget(predicate: (target: RemotionTarget) => boolean, options: { timeout: number }): Promise<RemotionTarget>;
}

/** Remotion's CDP connection answers `{ value, size }`; plain sessions answer the value. */
function unwrap<T>(answer: unknown): T {
  const wrapped = answer as { value?: T } | null;
  return (wrapped && typeof wrapped === 'object' && 'value' in wrapped ? wrapped.value : answer) as T;
}

/**
 * `frames` captured in order on one BeginFrame tab, each picture handed to `onPicture` (awaited:
 * an encoder's full pipe holds the drawing back), the tab closed afterwards.
 */
export async function captureSequence(args: BeginFrameCaptureArgs, frames: readonly number[], onPicture: (frame: number, picture: Buffer, index: number) => Promise<void>): Promise<void> {
  const capture = await BeginFrameCapture.open(args);
  try {
    for (const [index, frame] of frames.entries()) await onPicture(frame, await capture.frame(frame), index);
  } finally {
    await capture.close();
  }
}
