import { chmod, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { HeadlessBrowser } from '@remotion/renderer';
import { COMPOSITION_ID, type ResolvedRequest } from '../../../../composition/src/schema';
import type { AppConfig } from '../../../config/app-config';
import { ensureCompositionBundle } from '../composition-bundle';
import type { StillsArgs } from '../render-args';
import { BEGIN_FRAME_BROWSER_FLAGS, captureSequence } from './begin-frame-capture';
import { WARM_TAB_MAX_FRAMES } from './tabs';
import { screenshotsWithinViewport } from './screenshot-in-viewport';
import { WarmStillPage } from './warm-still-page';

/** Remotion's cancel signal (its type is not exported by name). */
export type RemotionCancelSignal = ReturnType<Awaited<typeof import('@remotion/renderer')>['makeCancelSignal']>['cancelSignal'];

/** Chromium flags for a headless render host with no GPU and no network beyond loopback. */
export const CHROMIUM_OPTIONS = { gl: 'angle' as const };

/**
 * The worker's one composition bundle and one warm browser, shared by every strategy: the page
 * options every Remotion call passes, the warm still tab, and a few frames drawn as images
 * (stills). A render error closes the browser; the next call opens a fresh one.
 */
export class BrowserHost {
  private bundle: Promise<string> | null = null;
  private browser: Promise<HeadlessBrowser> | null = null;
  readonly warmStills = new WarmStillPage();
  /** Callers of stills() drawing on the warm tab, one after the other. */
  private warmStillsQueue: Promise<void> = Promise.resolve();
  private closing = false;

  constructor(private readonly config: AppConfig['render']) {}

  serveUrl(): Promise<string> {
    this.bundle ??= ensureCompositionBundle(this.config.cacheDir).catch((error) => {
      this.bundle = null;
      throw error;
    });
    return this.bundle;
  }

  openBrowser(): Promise<HeadlessBrowser> {
    if (this.closing) return Promise.reject(new Error('The renderer is shutting down'));
    this.browser ??= Promise.all([import('@remotion/renderer'), this.executable()])
      .then(([{ openBrowser }, browserExecutable]) => openBrowser('chrome', { browserExecutable, chromiumOptions: CHROMIUM_OPTIONS, logLevel: 'error' }))
      .then((browser) => {
        if (this.config.screenshotInViewport) screenshotsWithinViewport(browser);
        return browser;
      })
      .catch((error) => {
        this.browser = null;
        throw error;
      });
    return this.browser;
  }

  /**
   * The executable Remotion launches: the configured one, or with RENDER_BEGIN_FRAME a script
   * beside the bundle cache that runs it with the flag BeginFrame control needs (Remotion's
   * openBrowser takes no extra flags); every tab of that browser draws as before.
   */
  private async executable(): Promise<string> {
    if (!this.config.beginFrame) return this.config.browserExecutable;
    const script = path.join(this.config.cacheDir, 'chromium-begin-frame.sh');
    const quoted = `'${this.config.browserExecutable.replace(/'/g, `'\\''`)}'`;
    await mkdir(this.config.cacheDir, { recursive: true });
    // Written aside and renamed: other workers sharing the cache may be launching it.
    const written = `${script}.${process.pid}`;
    await writeFile(written, `#!/bin/sh\nexec ${quoted} ${BEGIN_FRAME_BROWSER_FLAGS.join(' ')} "$@"\n`);
    await chmod(written, 0o755);
    await rename(written, script);
    return script;
  }

  /**
   * Frames of the composition captured with BeginFrame control on a tab of the warm browser
   * (browser/begin-frame-capture.ts), in order, each picture handed to `onPicture`.
   */
  async captureFrames(
    args: { resolved: ResolvedRequest; props: Record<string, unknown>; format: 'jpeg' | 'png'; jpegQuality?: number; signal: AbortSignal },
    frames: readonly number[],
    onPicture: (frame: number, picture: Buffer, index: number) => Promise<void>,
  ): Promise<void> {
    const [bundleDir, browser] = await Promise.all([this.serveUrl(), this.openBrowser()]);
    const { resolved, props, ...capture } = args;
    await captureSequence({ ...capture, browser, bundleDir, composition: compositionOf(resolved, props) }, frames, onPicture);
  }

  async closeBrowser(): Promise<void> {
    const browser = this.browser;
    this.browser = null;
    await this.warmStills.close();
    await browser?.then((b) => b.close({ silent: true })).catch(() => undefined);
  }

  /** The warm still tab's page would add to a video's peak memory (docs/performance.md): closed for it, reopened by the next still. */
  async parkStillTab(): Promise<void> {
    await this.warmStills.park();
  }

  /** Waits for a warm-up under way, so no bundling or browser outlives the application. */
  async shutDown(): Promise<void> {
    this.closing = true;
    await this.bundle?.catch(() => undefined);
    await this.closeBrowser();
  }

  /**
   * What every multi-frame Remotion call of this worker passes: its warm browser (and the
   * executable too: without it Remotion would look for, and try to download, its own), the page
   * concurrency, the flags, the cancel signal, quiet logs.
   */
  pageOptions(browser: HeadlessBrowser, cancelSignal: RemotionCancelSignal, tabs: number) {
    return {
      concurrency: tabs,
      puppeteerInstance: browser,
      browserExecutable: this.config.browserExecutable,
      chromiumOptions: CHROMIUM_OPTIONS,
      cancelSignal,
      logLevel: 'error' as const,
    };
  }

  /**
   * Chosen frames as images (a composite's layers, a contact sheet's tiles), drawn by the same
   * composition, browser and page set-up as a render; each image is handed to `onFrame`. Up to
   * WARM_TAB_MAX_FRAMES go one after the other on the warm still tab (queued behind any other
   * caller's) instead of a tab opened and loaded for them (most of a still's time); a still job drawing there
   * meanwhile sends them to their own tab.
   */
  async stills(args: StillsArgs): Promise<void> {
    const { renderFrames, makeCancelSignal } = await import('@remotion/renderer');
    const [serveUrl, browser] = await Promise.all([this.serveUrl(), this.openBrowser()]);
    const inputProps = args.props as unknown as Record<string, unknown>;
    if (this.config.warmStills && args.frames.length <= WARM_TAB_MAX_FRAMES) {
      const turn = this.warmStillsQueue.then(async () => {
        if (this.warmStills.busy) return false;
        await this.stillsOnWarmTab(args, browser, serveUrl, inputProps);
        return true;
      });
      this.warmStillsQueue = turn.then(() => undefined, () => undefined);
      if (await turn) return;
    }
    const { cancelSignal, cancel } = makeCancelSignal();
    const onAbort = () => cancel();
    args.signal.addEventListener('abort', onAbort, { once: true });
    const writes: Promise<void>[] = [];
    let writeFailure: unknown = null;
    try {
      await renderFrames({
        composition: compositionOf(args.resolved, inputProps),
        serveUrl,
        inputProps,
        frames: args.frames,
        imageFormat: args.imageFormat,
        ...(args.imageFormat === 'jpeg' ? { jpegQuality: this.config.jpegQuality } : {}),
        scale: args.scale,
        outputDir: null,
        onFrameBuffer: (buffer, frame) => {
          // Kept, not thrown here: Remotion would report it as a browser error.
          writes.push(args.onFrame(frame, buffer).catch((error: unknown) => void (writeFailure ??= error)));
        },
        onStart: () => undefined,
        onFrameUpdate: (rendered) => args.onProgress(rendered / args.frames.length),
        // A few frames: a second tab's set-up would cost more than it saves.
        ...this.pageOptions(browser, cancelSignal, 1),
      });
      await Promise.all(writes);
    } catch (error) {
      if (!args.signal.aborted) await this.closeBrowser();
      throw error;
    } finally {
      args.signal.removeEventListener('abort', onAbort);
    }
    if (writeFailure) throw writeFailure;
  }

  /** StillsArgs' frames drawn on the warm still tab, each through a file (the tab's screenshot is written to one). */
  private async stillsOnWarmTab(args: StillsArgs, browser: HeadlessBrowser, bundleDir: string, inputProps: Record<string, unknown>): Promise<void> {
    const folder = await mkdtemp(path.join(os.tmpdir(), 'vrs-layer-'));
    let drawn = 0;
    try {
      await this.warmStills.drawSeries(
        {
          browser,
          bundleDir,
          composition: compositionOf(args.resolved, inputProps),
          scale: args.scale,
          imageFormat: args.imageFormat,
          ...(args.imageFormat === 'jpeg' ? { jpegQuality: this.config.jpegQuality } : {}),
          signal: args.signal,
        },
        args.frames,
        (frame) => path.join(folder, `${frame}.${args.imageFormat}`),
        async (frame, output) => {
          await args.onFrame(frame, await readFile(output));
          args.onProgress(++drawn / args.frames.length);
        },
      );
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }
}

/** The VideoConfig of the one composition, from the server's own resolution (no page evaluation). */
export function compositionOf(resolved: ResolvedRequest, props: Record<string, unknown>) {
  return {
    id: COMPOSITION_ID,
    width: resolved.width,
    height: resolved.height,
    fps: resolved.fps,
    durationInFrames: resolved.durationInFrames,
    defaultProps: {},
    props,
    defaultCodec: null,
    defaultOutName: null,
    defaultVideoImageFormat: null,
    defaultPixelFormat: null,
    defaultProResProfile: null,
    defaultSampleRate: null,
  };
}
