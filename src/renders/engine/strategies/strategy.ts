import type { BrowserHost, RemotionCancelSignal } from '../browser/browser-host';
import type { PicturesPlan, RenderPlan, StrategyName } from '../planner/render-plan';
import type { RenderArgs } from '../render-args';
import type { Measured } from '../render-report';
import type { SoundMaker } from '../sound/sound-maker';

/** What the executor hands a strategy: the call, its plan, and the worker's shared browser and sound. */
export interface StrategyContext {
  args: RenderArgs;
  plan: RenderPlan;
  browser: BrowserHost;
  sound: SoundMaker;
  /** Remotion's cancel signal, cancelled when `args.signal` aborts. */
  cancelSignal: RemotionCancelSignal;
}

/**
 * One way of producing a render's pictures. `run` writes `args.outputPath` (pictures encoded, the
 * plan's sound muxed) exactly as the plan's `pictures` say, and returns what only running tells.
 * A strategy reaches other code only through the context and the shared modules (encode/,
 * sound/, codec/), never through another strategy.
 */
export interface PictureStrategy<N extends StrategyName = StrategyName> {
  readonly name: N;
  run(context: StrategyContext, pictures: Extract<PicturesPlan, { strategy: N }>): Promise<Measured>;
}
