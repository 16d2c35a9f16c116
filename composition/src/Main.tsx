import type React from 'react';
import { useMemo } from 'react';
import { AbsoluteFill, Sequence, useCurrentFrame } from 'remotion';
import { registerPropFontFaces } from './font-faces';
import './fonts';
import { AudioLayer } from './layers/AudioLayer';
import { Background } from './layers/Background';
import { ImageLayer } from './layers/ImageLayer';
import { ShapeLayer } from './layers/ShapeLayer';
import { TextLayer } from './layers/TextLayer';
import { VideoLayer } from './layers/VideoLayer';
import { Watermark } from './layers/Watermark';
import { WaveformLayer } from './layers/WaveformLayer';
import { LookLayer, matteSourceIds } from './look/LookLayer';
import { AudioLevelsProvider } from './motion/audio-levels';
import { paintOrderAt } from './motion/element-style';
import { FixedOpacityContext, fixedOpacityByFrame } from './motion/fixed-opacity';
import { MotionBlur } from './motion/motion-blur';
import { TransitionOverlays } from './motion/transition-overlays';
import { resolveRequest, type CompositionProps, type ResolvedElement } from './schema';

/** Paint order above every element (elements use z-index 4 × their back-to-front position). */
const TOP = 1_000_000;

/**
 * The whole render request as one Remotion component: the server renders it through the
 * bundle, the browser plays it with `<Player component={Main}>`. Every URL goes through
 * `sources` first, so the worker can substitute its local copies.
 */
export const Main: React.FC<CompositionProps> = ({ request, media, sources, transcripts, hidden, fixedOpacity, fontFaces }) => {
  const resolved = useMemo(() => resolveRequest(request, media ?? {}, transcripts ?? {}), [request, media, transcripts]);
  const frame = useCurrentFrame();
  const load = (url: string) => sources?.[url] ?? url;
  // During render, not in an effect: the text layers' effects (which run first) wait on these
  // faces. The request's own fonts with a family load from their URL (the worker's copy, or the
  // URL itself in a browser); the worker names those without a family in `fontFaces`.
  useMemo(() => {
    const own = (request.fonts ?? []).flatMap((font) =>
      font.family ? [{ family: font.family, weight: String(font.weight ?? 400), style: font.style ?? 'normal', url: sources?.[font.source_url] ?? font.source_url }] : [],
    );
    registerPropFontFaces([...(fontFaces ?? []), ...own]);
  }, [fontFaces, request.fonts, sources]);
  const matteSources = useMemo(() => matteSourceIds(request), [request]);
  const hiddenElements = useMemo(() => new Set(hidden?.elements ?? []), [hidden]);
  const fixedByFrame = useMemo(() => fixedOpacityByFrame(fixedOpacity), [fixedOpacity]);
  const fixedNow = fixedByFrame.get(frame);
  const scene = (
    <>
      {hidden?.background ? null : <Background request={resolved} load={load} />}
      {resolved.elements.filter((element) => (element.id === null || !matteSources.has(element.id)) && !hiddenElements.has(element.index)).map((element) => (
        <Sequence
          key={element.index}
          from={element.from}
          durationInFrames={element.durationInFrames}
          name={element.id ?? `${element.type} ${element.index}`}
          layout="none"
        >
          {element.type === 'audio' ? (
            <Layer element={element} load={load} />
          ) : (
            <LookLayer element={element} request={request} resolved={resolved} load={load} zIndex={paintOrderAt(element, frame, resolved.fps)}>
              {fixedNow?.has(element.index) ? (
                <FixedOpacityContext.Provider value={fixedNow.get(element.index)!}>
                  <Layer element={element} load={load} />
                </FixedOpacityContext.Provider>
              ) : (
                <Layer element={element} load={load} />
              )}
            </LookLayer>
          )}
        </Sequence>
      ))}
      <TransitionOverlays transitions={resolved.transitions} zIndex={TOP - 1} />
      {resolved.watermarkUrl && !hidden?.watermark ? (
        <AbsoluteFill style={{ zIndex: TOP }}>
          <Watermark src={load(resolved.watermarkUrl)} />
        </AbsoluteFill>
      ) : null}
    </>
  );
  return (
    <AbsoluteFill style={{ overflow: 'hidden' }}>
      <AudioLevelsProvider resolved={resolved} load={load}>
        {request.motion_blur ? <MotionBlur samples={request.motion_blur.samples} shutter={request.motion_blur.shutter}>{scene}</MotionBlur> : scene}
      </AudioLevelsProvider>
    </AbsoluteFill>
  );
};

const Layer: React.FC<{ element: ResolvedElement; load: (url: string) => string }> = ({ element, load }) => {
  switch (element.type) {
    case 'video':
      return <VideoLayer element={element} src={load(element.src)} />;
    case 'audio':
      return <AudioLayer element={element} src={load(element.src)} />;
    case 'image':
      return <ImageLayer element={element} src={load(element.src)} />;
    case 'text':
      return <TextLayer element={element} />;
    case 'shape':
      return <ShapeLayer element={element} />;
    case 'waveform':
      return <WaveformLayer element={element} />;
  }
};
