import { useEffect, useMemo, useRef, useState } from 'react';
import { random, useCurrentFrame, useDelayRender, useRemotionEnvironment, useVideoConfig, type EffectsProp } from 'remotion';
import { reportPreviewProblem, whyUnreadable } from '../preview-problems';
import type { VisualElement } from '../schema/elements';
import { gradeSettings, isNeutral } from './colour';
import { gradeEffect } from './grade-effect';
import { parseCube, type CubeLut } from './lut';
import { pixelateBlock, pixelateEffect } from './pixelate-effect';
import { activeEffects } from './resolve-look';
import { splitEffect, splitParams, type SplitParams } from './split-effect';

/** Each LUT URL is fetched and parsed once per page, whatever the number of elements using it. */
const LUTS = new Map<string, Promise<CubeLut>>();

function loadLut(url: string): Promise<CubeLut> {
  let pending = LUTS.get(url);
  if (!pending) {
    pending = fetch(url).then(async (response) => {
      if (!response.ok) throw new Error(`LUT ${url} answered HTTP ${response.status}`);
      return parseCube(await response.text());
    });
    LUTS.set(url, pending);
  }
  return pending;
}

/**
 * The Remotion effects (for `<Video>` or `<CanvasImage>`) that draw the colour fields and LUT of
 * a video or image element, and its active `pixelate`, `vignette`, `film_grain`,
 * `chromatic_aberration` and `glitch` effects; empty when none is set. The frame
 * waits until the LUT is loaded. `boxWidth`: the element box in canvas pixels.
 */
export function useGrade(element: VisualElement, load: (url: string) => string, boxWidth = 0): EffectsProp {
  const frame = useCurrentFrame();
  const { fps, height: canvasHeight } = useVideoConfig();
  const { delayRender, continueRender, cancelRender } = useDelayRender();
  const { isPlayer } = useRemotionEnvironment();
  const colour = element.type === 'video' || element.type === 'image' ? element : null;
  const lutUrl = colour?.lut_url ?? null;
  const lutSource = lutUrl ? load(lutUrl) : null;
  const [lut, setLut] = useState<{ url: string; lut: CubeLut } | null>(null);
  const pending = useRef<number | null>(null);
  useEffect(() => {
    if (!lutUrl || !lutSource) return;
    const handle = delayRender(`Loading LUT ${lutUrl}`);
    pending.current = handle;
    let cancelled = false;
    loadLut(lutSource)
      .then((parsed) => !cancelled && setLut((current) => (current?.lut === parsed ? current : { url: lutUrl, lut: parsed })))
      .catch(async (error: Error) => {
        if (!isPlayer) return cancelRender(error);
        // In a <Player> (the page may be refused the file, CORS): reported, and the picture drawn without its LUT.
        const { reason } = await whyUnreadable(lutSource);
        reportPreviewProblem({ kind: 'lut', url: lutUrl, message: `the LUT ${lutUrl} cannot be used in this page: ${reason}. The preview is drawn without it.` });
        if (pending.current === handle) {
          pending.current = null;
          continueRender(handle);
        }
      });
    return () => {
      cancelled = true;
      if (pending.current === handle) {
        pending.current = null;
        continueRender(handle);
      }
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per LUT: the delayRender functions are not stable
  }, [lutUrl, lutSource]);
  // Released after the commit that hands the LUT to the video or image, whose own redraw has then
  // already taken its delayRender: the frame is never captured ungraded.
  useEffect(() => {
    if (lut && pending.current !== null) {
      continueRender(pending.current);
      pending.current = null;
    }
  }, [lut, continueRender]);

  const settings = useMemo(() => (colour ? gradeSettings(colour) : null), [colour]);
  // The catalog's pixelate, vignette and film grain, on a picture: canvas passes (see pixelate-effect.ts, grade-effect.ts).
  const active = colour ? activeEffects(element, frame / fps) : [];
  const strongest = (type: string) => Math.min(1, active.filter((effect) => effect.type === type).reduce((sum, effect) => sum + effect.intensity, 0));
  const catalogVignette = strongest('vignette');
  const catalogGrain = strongest('film_grain');
  const noisy = (settings?.noise ?? 0) > 0 || catalogGrain > 0;
  // Noise changes every frame, from a seed derived from the element and the frame.
  const seed = noisy ? Math.floor(random(`noise-${element.id ?? ''}-${frame}`) * 2 ** 31) : 0;
  // Written during render, read when the <Video> redraws this frame (see GradeParams.seed).
  const seedBox = useRef({ value: 0 }).current;
  seedBox.value = seed;
  const isVideo = element.type === 'video';
  // Chromatic aberration and glitch: a video reads this frame's split from the box (see split-effect.ts).
  const split = splitParams(strongest('chromatic_aberration'), strongest('glitch'), { canvasHeight, boxWidth, seed: `${element.id ?? ''}-${frame}` });
  const splitBox = useRef<{ value: SplitParams | null }>({ value: null }).current;
  splitBox.value = split;
  const splitKey = split ? (isVideo ? 'video' : JSON.stringify(split)) : '';
  const pixelate = active.filter((effect) => effect.type === 'pixelate').map((effect) => pixelateBlock(effect.intensity, canvasHeight));
  const pixelateKey = pixelate.join(',');
  // A video reads the seed from the box when it redraws; a still is redrawn when its seed changes.
  const stillSeed = isVideo ? 0 : seed;
  return useMemo(() => {
    if (!settings) return [];
    const activeLut = lutUrl && lut?.url === lutUrl ? lut.lut : null;
    const blocks = pixelateKey === '' ? [] : pixelateKey.split(',').map(Number);
    const pixelated = blocks.map((block) => pixelateEffect({ block, boxWidth }));
    if (splitKey !== '') pixelated.unshift(splitEffect({ box: splitBox as { value: SplitParams }, video: splitKey === 'video' }));
    const catalog = catalogVignette > 0 || catalogGrain > 0 ? { vignette: catalogVignette, grain: catalogGrain } : undefined;
    if (isNeutral(settings) && !activeLut && !catalog) return pixelated;
    return [gradeEffect({ settings, lut: activeLut, lutKey: lutUrl ?? '', seed: isVideo ? seedBox : stillSeed, catalog }), ...pixelated];
  }, [settings, lut, lutUrl, isVideo, seedBox, stillSeed, pixelateKey, boxWidth, catalogVignette, catalogGrain, splitKey, splitBox]);
}
