import type React from 'react';
import { useMemo } from 'react';
import { AbsoluteFill, Sequence } from 'remotion';
import './fonts';
import { AudioLayer } from './layers/AudioLayer';
import { Background } from './layers/Background';
import { ImageLayer } from './layers/ImageLayer';
import { ShapeLayer } from './layers/ShapeLayer';
import { TextLayer } from './layers/TextLayer';
import { VideoLayer } from './layers/VideoLayer';
import { Watermark } from './layers/Watermark';
import { LookLayer, matteSourceIds } from './look/LookLayer';
import { resolveRequest, type CompositionProps, type ResolvedElement } from './schema';

/**
 * The whole render request as one Remotion component: the server renders it through the
 * bundle, the browser plays it with `<Player component={Main}>`. Every URL goes through
 * `sources` first, so the worker can substitute its local copies.
 */
export const Main: React.FC<CompositionProps> = ({ request, media, sources }) => {
  const resolved = useMemo(() => resolveRequest(request, media ?? {}), [request, media]);
  const load = (url: string) => sources?.[url] ?? url;
  const matteSources = useMemo(() => matteSourceIds(request), [request]);
  return (
    <AbsoluteFill style={{ overflow: 'hidden' }}>
      <Background request={resolved} load={load} />
      {resolved.elements.filter((element) => element.id === null || !matteSources.has(element.id)).map((element) => (
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
            <LookLayer element={element} request={request} resolved={resolved} load={load}>
              <Layer element={element} load={load} />
            </LookLayer>
          )}
        </Sequence>
      ))}
      {resolved.watermarkUrl ? <Watermark src={load(resolved.watermarkUrl)} /> : null}
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
  }
};
