import type { ResolvedRequest } from '../../../../composition/src/schema';

/** Frames a layer may have to be drawn on the warm still tab (RemotionRenderer.stills) rather than a tab of its own. */
export const WARM_TAB_MAX_FRAMES = 8;

/**
 * The most tabs that may draw a render's frames: RENDER_TABS (at most the machine's cores) for a
 * page with no video clip, one where the page decodes a clip (measured no faster, and heavier:
 * docs/performance.md). The planner opens the second only when the frames repay it (tabsWorthOpening).
 */
export function drawingTabs(resolved: ResolvedRequest, config: { tabs: number; cores: number }): number {
  if (resolved.elements.some((element) => element.type === 'video')) return 1;
  return Math.max(1, Math.min(config.tabs, config.cores));
}
