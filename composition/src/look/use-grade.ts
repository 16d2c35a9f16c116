import { useEffect, useMemo, useRef, useState } from 'react';
import { random, useCurrentFrame, useDelayRender, type EffectsProp } from 'remotion';
import type { VisualElement } from '../schema/elements';
import { gradeSettings, isNeutral } from './colour';
import { gradeEffect } from './grade-effect';
import { parseCube, type CubeLut } from './lut';

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
 * a video or image element; empty when none is set. The frame waits until the LUT is loaded.
 */
export function useGrade(element: VisualElement, load: (url: string) => string): EffectsProp {
  const frame = useCurrentFrame();
  const { delayRender, continueRender, cancelRender } = useDelayRender();
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
      .catch((error: Error) => cancelRender(error));
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
  const noisy = (settings?.noise ?? 0) > 0;
  // Noise changes every frame, from a seed derived from the element and the frame.
  const seed = noisy ? Math.floor(random(`noise-${element.id ?? ''}-${frame}`) * 2 ** 31) : 0;
  // Written during render, read when the <Video> redraws this frame (see GradeParams.seed).
  const seedBox = useRef({ value: 0 }).current;
  seedBox.value = seed;
  const isVideo = element.type === 'video';
  // A video reads the seed from the box when it redraws; a still is redrawn when its seed changes.
  const stillSeed = isVideo ? 0 : seed;
  return useMemo(() => {
    if (!settings) return [];
    const activeLut = lutUrl && lut?.url === lutUrl ? lut.lut : null;
    if (isNeutral(settings) && !activeLut) return [];
    return [gradeEffect({ settings, lut: activeLut, lutKey: lutUrl ?? '', seed: isVideo ? seedBox : stillSeed })];
  }, [settings, lut, lutUrl, isVideo, seedBox, stillSeed]);
}
