/**
 * What one unit of each kind of work costs on the reference machine (2 cores, 1080p, x264
 * `medium`), in milliseconds: the only figures the planner weighs paths by. Each comes from a
 * measurement in docs/performance.md (the section is named); a figure nobody measured says so.
 * Re-measure and edit here; nothing else in the engine holds a cost.
 */
export interface CostModel {
  /** One frame's trip through the page with one tab, JPEG capture, Remotion's encoder beside it ("Drawing tabs": 23.3 s for 300 frames). */
  pageFrameMs: number;
  /** The same frame with two tabs drawing ("Drawing tabs": 17.4 s for 300 frames). */
  pageFrameTwoTabsMs: number;
  /** A frame of a page that decodes a video clip, one tab ("Media outside the browser", clip drawn by the browser: 32.9 s for 300). */
  pageFrameWithClipMs: number;
  /**
   * Share of a page frame that does not shrink with the canvas ("Drawing tabs": 2 s of 320x180 and
   * 1 s of 1080p, less ≈ 1.5–2 s of set-up each, give a 320x180 frame 0.4–0.5 of a 1080p one).
   */
  pageFixedShare: number;
  /**
   * Of a browser-path page frame (pageFrameMs, pageFrameTwoTabsMs, pageFrameWithClipMs), the part that
   * is Remotion's x264 encoding it beside the page on the same cores: a frame drawn with no encoder
   * beside it (the held strategies draw, then encode) costs the page frame less this. Taken as one
   * x264 picture (x264PictureMs, "Held frames as skip pictures"); issue 32's texts row, held drawing
   * 192 of 300 frames, ran ≈ 2× faster than the browser ("The texts row", 2026-11-27-moving-texts.md).
   */
  encoderBesidePageMs: number;
  /**
   * Of two stages overlapping on the two cores (the composite's graph and the lower layer's drawing),
   * the share of the shorter one that still adds to the wall time. 1 (no gain counted) until a quiet
   * run measures it: the loaded runs of docs/performance-log/2026-11-27-composite-overlap.md could not.
   */
  overlapShare: number;
  /** A frame of a transparent layer captured as PNG ("Media outside the browser": ≈ 110 ms each). */
  layerFramePngMs: number;
  /** A frame drawn on the warm still tab ("Stills and memory"; RemotionRenderer.stills with at most 8 frames). */
  warmTabFrameMs: number;
  /** Opening and loading a tab for a series of frames ("Stills and memory": ≈ 1.5 s). */
  tabOpenMs: number;
  /**
   * What a second drawing tab adds to a render before the frames it draws pay it back, in this
   * table's units: it loads the bundle beside the first. Set where bench:short found one and two tabs
   * even (≈ 30 frames at 720p and 1080p, more at 320x180: docs/performance-log/2026-11-28-second-tab.md).
   */
  secondTabMs: number;
  /** x264 encoding one distinct picture ("Held frames as skip pictures": ≈ 34 ms). */
  x264PictureMs: number;
  /**
   * Encoding one frame after the drawing, with the planner's stitch settings (encode/stitch-settings.ts),
   * wall time on both cores ("Alpha and GIF encoders", docs/performance-log/2026-11-27-alpha-gif.md).
   */
  vp9FrameMs: number;
  proresFrameMs: number;
  gifFrameMs: number;
  /** x264 analysing a held repeat it is given as a frame, without skip pictures ("The encoder side": ≈ 10 ms). */
  x264HeldRepeatMs: number;
  /** Node mixing one output frame from its drawn corners ("Fading frames mixed": 5.5–8.8 ms from two). */
  mixFrameMs: number;
  /** Mixing one upper-layer frame of the composite from PNG corners (decode, mix, deflate): an estimate, not measured apart. */
  layerMixFrameMs: number;
  /** One output frame of the media composite's ffmpeg graph with x264 ("Media outside the browser": 7.9–8.0 s for 300). */
  compositeFrameMs: number;
  /** Fixed cost of starting a path's processes (the held path's encoder, the composite's graph): an estimate. */
  startMs: number;
  /**
   * Fixed cost of one chunk beyond its frames: the queue's pick-up, the inputs prepared again, the
   * tabs opened with the bundle, a fresh encoder, the file stored and joined ("Chunk fixed cost").
   */
  chunkStartMs: number;
  /** Fixed cost of one more segment of a whole render on the chunk grid: tabs opened and a fresh encoder ("Chunk fixed cost"). */
  segmentStartMs: number;
  // BeginFrame capture (browser/begin-frame-capture.ts, docs/decisions/0108-begin-frame-capture.md).
  /** One frame through the page with one tab, captured by the frame begun with its screenshot (encoder apart): "BeginFrame capture". */
  beginFrameMs: number;
  /** The same for a page that decodes a video clip. */
  beginFrameWithClipMs: number;
}

/** Canvas size the figures were measured at. */
export const REFERENCE_PIXELS = 1920 * 1080;

export const COST_MODEL: CostModel = {
  pageFrameMs: 78,
  pageFrameTwoTabsMs: 58,
  pageFrameWithClipMs: 110,
  pageFixedShare: 0.5,
  encoderBesidePageMs: 34,
  overlapShare: 1,
  layerFramePngMs: 110,
  warmTabFrameMs: 250,
  tabOpenMs: 1500,
  secondTabMs: 550,
  x264PictureMs: 34,
  x264HeldRepeatMs: 10,
  vp9FrameMs: 33,
  proresFrameMs: 45,
  gifFrameMs: 130,
  mixFrameMs: 8.8,
  layerMixFrameMs: 30,
  compositeFrameMs: 27,
  startMs: 300,
  chunkStartMs: 3000,
  segmentStartMs: 2300,
  beginFrameMs: 35,
  beginFrameWithClipMs: 75,
};

/**
 * The figures for a canvas of `pixels`: page work keeps its fixed share whatever the size, pixel
 * work (encoders, mixes, the composite graph) scales with the area.
 */
export function scaledCosts(model: CostModel, pixels: number): CostModel {
  const area = pixels / REFERENCE_PIXELS;
  const page = (ms: number) => ms * (model.pageFixedShare + (1 - model.pageFixedShare) * area);
  const pixelWork = (ms: number) => ms * area;
  return {
    ...model,
    pageFrameMs: page(model.pageFrameMs),
    pageFrameTwoTabsMs: page(model.pageFrameTwoTabsMs),
    pageFrameWithClipMs: page(model.pageFrameWithClipMs),
    layerFramePngMs: page(model.layerFramePngMs),
    warmTabFrameMs: page(model.warmTabFrameMs),
    x264PictureMs: pixelWork(model.x264PictureMs),
    encoderBesidePageMs: pixelWork(model.encoderBesidePageMs),
    x264HeldRepeatMs: pixelWork(model.x264HeldRepeatMs),
    vp9FrameMs: pixelWork(model.vp9FrameMs),
    proresFrameMs: pixelWork(model.proresFrameMs),
    gifFrameMs: pixelWork(model.gifFrameMs),
    mixFrameMs: pixelWork(model.mixFrameMs),
    layerMixFrameMs: pixelWork(model.layerMixFrameMs),
    compositeFrameMs: pixelWork(model.compositeFrameMs),
    beginFrameMs: page(model.beginFrameMs),
    beginFrameWithClipMs: page(model.beginFrameWithClipMs),
  };
}
