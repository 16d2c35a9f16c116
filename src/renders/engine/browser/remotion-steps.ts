import { createRequire } from 'node:module';
import * as path from 'node:path';

/**
 * The parts of Remotion's renderer a still needs, by file: `renderStill` opens a tab, loads the
 * bundle and its fonts and closes the tab on every call (most of a still's time), and these
 * are the steps it is made of. Not exported by the package, so they are reached by path; the
 * renderer's version is pinned in package.json, and test/render-stills.e2e-spec.ts draws through them (the
 * warm still page and the BeginFrame capture, begin-frame-capture.ts, are made of them).
 */
export interface RemotionSteps {
  setPropsAndEnv(options: Record<string, unknown>): Promise<void>;
  puppeteerEvaluateWithCatch(options: { pageFunction: (...args: never[]) => unknown; args: unknown[]; frame: null; page: RemotionPage; timeoutInMilliseconds: number }): Promise<unknown>;
  seekToFrame(options: { frame: number; page: RemotionPage; composition: string; timeoutInMilliseconds: number; indent: boolean; logLevel: 'error'; attempt: number }): Promise<void>;
  takeFrame(options: Record<string, unknown>): Promise<unknown>;
  handleJavascriptException(options: { page: RemotionPage; onError: (error: Error) => void; frame: null }): () => Promise<void>;
  prepareServer(options: Record<string, unknown>): Promise<{ serveUrl: string; closeServer: (force: boolean) => Promise<unknown>; offthreadPort: number; sourceMap: () => unknown }>;
  findRemotionRoot(): string;
  defaultOnLog: unknown;
  getAvailableMemory(logLevel: 'error'): number;
}

export interface RemotionPage {
  setViewport(viewport: { width: number; height: number; deviceScaleFactor: number }): Promise<void>;
  close(): Promise<void>;
}

export function remotionSteps(): RemotionSteps {
  // By absolute path: the package's `exports` map lets nothing but its entry points be imported.
  const load = createRequire(__filename);
  const dist = path.dirname(load.resolve('@remotion/renderer'));
  const from = (file: string) => load(path.join(dist, file)) as Record<string, unknown>;
  return {
    ...(from('set-props-and-env.js') as Pick<RemotionSteps, 'setPropsAndEnv'>),
    ...(from('puppeteer-evaluate.js') as Pick<RemotionSteps, 'puppeteerEvaluateWithCatch'>),
    ...(from('seek-to-frame.js') as Pick<RemotionSteps, 'seekToFrame'>),
    ...(from('take-frame.js') as Pick<RemotionSteps, 'takeFrame'>),
    ...(from('error-handling/handle-javascript-exception.js') as Pick<RemotionSteps, 'handleJavascriptException'>),
    ...(from('prepare-server.js') as Pick<RemotionSteps, 'prepareServer'>),
    ...(from('find-closest-package-json.js') as Pick<RemotionSteps, 'findRemotionRoot'>),
    ...(from('default-on-log.js') as Pick<RemotionSteps, 'defaultOnLog'>),
    ...(from('memory/get-available-memory.js') as Pick<RemotionSteps, 'getAvailableMemory'>),
  };
}


/** As `renderStill`'s default (Remotion's puppeteer timeout). */
export const TIMEOUT_MS = 30_000;

/** What a tab's page is given about the composition to draw. */
export interface PageComposition {
  id: string;
  width: number;
  height: number;
  fps: number;
  durationInFrames: number;
  props: Record<string, unknown>;
}

export type BundleServer = Awaited<ReturnType<RemotionSteps['prepareServer']>>;

/** Remotion's file server for the bundle and its media proxy, as renderStill starts it. */
export function serveBundle(steps: RemotionSteps, bundleDir: string): Promise<BundleServer> {
  return steps.prepareServer({
    webpackConfigOrServeUrl: bundleDir,
    port: null,
    remotionRoot: steps.findRemotionRoot(),
    offthreadVideoThreads: 2,
    logLevel: 'error',
    indent: false,
    offthreadVideoCacheSizeInBytes: null,
    binariesDirectory: null,
    forceIPv4: false,
    sampleRate: 48000,
  });
}

/** The bundle loaded into `page` (its fonts and environment), as renderStill and renderMedia load it, without props yet. */
export function loadBundle(steps: RemotionSteps, page: RemotionPage, server: BundleServer): Promise<void> {
  return steps.setPropsAndEnv({
    serializedInputPropsWithCustomSchema: '{}',
    envVariables: {},
    page,
    serveUrl: server.serveUrl,
    initialFrame: 0,
    timeoutInMilliseconds: TIMEOUT_MS,
    proxyPort: server.offthreadPort,
    retriesRemaining: 2,
    audioEnabled: false,
    videoEnabled: true,
    indent: false,
    logLevel: 'error',
    onServeUrlVisited: () => undefined,
    isMainTab: true,
    mediaCacheSizeInBytes: null,
    initialMemoryAvailable: steps.getAvailableMemory('error'),
    darkMode: false,
    sampleRate: 48000,
  });
}

/** The composition and its props set on a loaded page (`remotion_setBundleMode`, as renderStill does after loading). */
export async function setComposition(steps: RemotionSteps, page: RemotionPage, composition: PageComposition, serializedProps: string): Promise<void> {
  await steps.puppeteerEvaluateWithCatch({
    pageFunction: ((id: string, props: string, durationInFrames: number, fps: number, height: number, width: number) => {
      (globalThis as unknown as { remotion_setBundleMode: (mode: unknown) => void }).remotion_setBundleMode({
        type: 'composition',
        compositionName: id,
        serializedResolvedPropsWithSchema: props,
        compositionDurationInFrames: durationInFrames,
        compositionFps: fps,
        compositionHeight: height,
        compositionWidth: width,
        compositionDefaultCodec: null,
        compositionDefaultOutName: null,
        compositionDefaultVideoImageFormat: null,
        compositionDefaultPixelFormat: null,
        compositionDefaultProResProfile: null,
        compositionDefaultSampleRate: null,
      });
    }) as (...args: never[]) => unknown,
    args: [composition.id, serializedProps, composition.durationInFrames, composition.fps, composition.height, composition.width],
    frame: null,
    page,
    timeoutInMilliseconds: TIMEOUT_MS,
  });
}
