import type { MetricsService } from '../../metrics/metrics.service';
import type { BrowserHost } from './browser/browser-host';
import type { RenderPlan, StrategyName } from './planner/render-plan';
import type { RenderArgs } from './render-args';
import type { RenderReport } from './render-report';
import type { SoundMaker } from './sound/sound-maker';
import { browserStrategy } from './strategies/browser.strategy';
import { blendedFramesStrategy, heldFramesStrategy } from './strategies/held-frames/held-frames.strategy';
import { mediaCompositeStrategy } from './strategies/media-composite/media-composite.strategy';
import { stillStrategy } from './strategies/still.strategy';
import type { PictureStrategy } from './strategies/strategy';

/** Every strategy, by the name a plan gives. */
export const STRATEGIES: { [N in StrategyName]: PictureStrategy<N> } = {
  still: stillStrategy,
  browser: browserStrategy,
  held_frames: heldFramesStrategy,
  blended_frames: blendedFramesStrategy,
  media_composite: mediaCompositeStrategy,
};

/**
 * Carries out a plan: the strategy it names draws and encodes, with Remotion's cancel signal tied
 * to the job's; a failure closes the browser (it may be what broke; a fresh one costs about a
 * second at the next render).
 */
export async function executePlan(
  deps: { browser: BrowserHost; sound: SoundMaker; metrics: Pick<MetricsService, 'videoRendered'> },
  args: RenderArgs,
  plan: RenderPlan,
): Promise<RenderReport> {
  const { makeCancelSignal } = await import('@remotion/renderer');
  const { cancelSignal, cancel } = makeCancelSignal();
  const onAbort = () => cancel();
  args.signal.addEventListener('abort', onAbort, { once: true });
  const { pictures } = plan;
  try {
    // The composite draws its few layer frames on the warm still tab; other videos close it for their peak memory.
    if (pictures.strategy !== 'still' && pictures.strategy !== 'media_composite') await deps.browser.parkStillTab();
    const started = performance.now();
    const strategy = STRATEGIES[pictures.strategy] as PictureStrategy;
    const measured = await strategy.run({ args, plan, browser: deps.browser, sound: deps.sound, cancelSignal }, pictures as never);
    if (pictures.strategy !== 'still') deps.metrics.videoRendered(plan.frames.total, (performance.now() - started) / 1000);
    return { plan, measured };
  } catch (error) {
    if (!args.signal.aborted) await deps.browser.closeBrowser();
    throw error;
  } finally {
    args.signal.removeEventListener('abort', onAbort);
  }
}
