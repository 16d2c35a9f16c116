import type { HeadlessBrowser } from '@remotion/renderer';
import { NoReactInternals } from 'remotion/no-react';
import { loadBundle, remotionSteps, serveBundle, setComposition, TIMEOUT_MS, type PageComposition, type RemotionPage, type RemotionSteps } from './remotion-steps';

/** The tab is replaced after this many stills, so whatever its page accumulates (caches, decoders) stays bounded. */
const STILLS_PER_TAB = 200;

export type StillComposition = PageComposition;

export interface WarmStillArgs {
  browser: HeadlessBrowser;
  /** The composition bundle's folder. */
  bundleDir: string;
  composition: StillComposition;
  frame: number;
  scale: number;
  imageFormat: 'png' | 'jpeg';
  jpegQuality?: number;
  output: string;
  signal: AbortSignal;
}

interface Tab {
  browser: HeadlessBrowser;
  bundleDir: string;
  page: RemotionPage;
  closeServer: () => Promise<unknown>;
  stopErrors: () => Promise<void>;
  /** Set by the page's uncaught exceptions; the still under way rejects with it. */
  onError: (error: Error) => void;
  stills: number;
}

/**
 * One browser tab with the composition bundle loaded, kept open between stills: each still only
 * sets the composition's props (`remotion_setBundleMode`, as renderStill does after loading),
 * seeks to the frame and takes the screenshot. The composition remounts for every new request
 * (Root keys it by its props), so nothing of an earlier still's React state reaches the next.
 * One still at a time: `busy` tells the caller to use renderStill meanwhile. Any failure closes
 * the tab, and so does a video render (its memory would add to the video's); the next still opens
 * a new one.
 */
export class WarmStillPage {
  private tab: Promise<Tab> | null = null;
  private steps: RemotionSteps | null = null;
  busy = false;

  async draw(args: WarmStillArgs): Promise<void> {
    await this.drawSeries(args, [args.frame], () => args.output, async () => undefined);
  }

  /**
   * Several frames of one composition, one after the other, the tab kept for them throughout
   * (no still in between): each written to `outputOf(frame)`, then handed to `onDrawn`.
   */
  async drawSeries(args: Omit<WarmStillArgs, 'frame' | 'output'>, frames: readonly number[], outputOf: (frame: number) => string, onDrawn: (frame: number, output: string) => Promise<void>): Promise<void> {
    if (this.busy) throw new Error('The warm still page is drawing another still');
    this.busy = true;
    try {
      for (const frame of frames) {
        await this.drawOne({ ...args, frame, output: outputOf(frame) });
        await onDrawn(frame, outputOf(frame));
      }
    } catch (error) {
      await this.close();
      throw error;
    } finally {
      this.busy = false;
    }
  }

  private async drawOne(args: WarmStillArgs): Promise<void> {
    args.signal.throwIfAborted();
    const tab = await this.tabFor(args);
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(args.signal.reason ?? new Error('aborted'));
      args.signal.addEventListener('abort', onAbort, { once: true });
      tab.onError = reject;
      this.drawOn(tab, args)
        .then(resolve, reject)
        .finally(() => {
          args.signal.removeEventListener('abort', onAbort);
          tab.onError = () => undefined;
        });
    });
    tab.stills++;
    if (tab.stills >= STILLS_PER_TAB) await this.close();
  }

  /** Closes the tab unless a still is being drawn on it (a video render starting). */
  async park(): Promise<void> {
    if (!this.busy) await this.close();
  }

  /** Closes the tab and its bundle server (a render error, the browser closing, shutdown). */
  async close(): Promise<void> {
    const tab = this.tab;
    this.tab = null;
    const opened = await tab?.catch(() => null);
    if (!opened) return;
    await opened.stopErrors().catch(() => undefined);
    await opened.page.close().catch(() => undefined);
    await opened.closeServer().catch(() => undefined);
  }

  private async drawOn(tab: Tab, args: WarmStillArgs): Promise<void> {
    const steps = this.steps!;
    const { composition } = args;
    await tab.page.setViewport({ width: composition.width, height: composition.height, deviceScaleFactor: args.scale });
    const serializedProps = NoReactInternals.serializeJSONWithSpecialTypes({ data: composition.props, indent: undefined, staticBase: null }).serializedString;
    await setComposition(steps, tab.page, composition, serializedProps);
    await steps.seekToFrame({ frame: args.frame, page: tab.page, composition: composition.id, timeoutInMilliseconds: TIMEOUT_MS, indent: false, logLevel: 'error', attempt: 0 });
    await steps.takeFrame({
      freePage: tab.page,
      height: composition.height,
      width: composition.width,
      imageFormat: args.imageFormat,
      scale: args.scale,
      output: args.output,
      jpegQuality: args.jpegQuality,
      wantsBuffer: false,
      timeoutInMilliseconds: TIMEOUT_MS,
    });
  }

  private async tabFor({ browser, bundleDir }: WarmStillArgs): Promise<Tab> {
    const current = await this.tab?.catch(() => null);
    if (current && current.browser === browser && current.bundleDir === bundleDir) return current;
    await this.close();
    const opening = this.open(browser, bundleDir);
    this.tab = opening;
    return opening;
  }

  private async open(browser: HeadlessBrowser, bundleDir: string): Promise<Tab> {
    this.steps ??= remotionSteps();
    const steps = this.steps;
    const server = await serveBundle(steps, bundleDir);
    let page: RemotionPage | null = null;
    try {
      page = (await (browser as unknown as { newPage(options: Record<string, unknown>): Promise<RemotionPage> }).newPage({
        context: server.sourceMap,
        logLevel: 'error',
        indent: false,
        pageIndex: 0,
        onBrowserLog: null,
        onLog: steps.defaultOnLog,
      })) as RemotionPage;
      const opened = page;
      const tab: Tab = {
        browser,
        bundleDir,
        page: opened,
        closeServer: () => server.closeServer(false),
        stopErrors: async () => undefined,
        onError: () => undefined,
        stills: 0,
      };
      tab.stopErrors = steps.handleJavascriptException({ page: opened, onError: (error) => tab.onError(error), frame: null });
      await loadBundle(steps, opened, server);
      return tab;
    } catch (error) {
      await page?.close().catch(() => undefined);
      await server.closeServer(false).catch(() => undefined);
      throw error;
    }
  }
}
