/**
 * Hand-written bitstream and image code, kept because ffmpeg offers no way to do what it does and a
 * benchmark shows it saves far more than 20 % on a named case (docs/performance.md):
 *
 * - h264-holds.ts, h264-bits.ts: x264's pictures spliced with skip pictures (held frames) and
 *   decoder-mixed B pictures (fades). The 30 s 1080p slideshow (`npm run bench:speed slideshow`):
 *   18.9 s with every fading frame encoded by x264 → 5.6 s ("Fades as the decoder's mix"), and
 *   25.2 → 18.9 s for the skip pictures alone ("Held frames as skip pictures").
 * - mpeg-ts.ts: carries those access units with their decoding and presentation times into
 *   ffmpeg, which copies them into the MP4 (no ffmpeg muxer takes raw H.264 with explicit times).
 * - png.ts: reads the composite's upper-layer PNGs (their drawn area bounds the regions ffmpeg
 *   recomputes: the composite's ffmpeg run 11.5–12.1 s → 7.9–8.0 s with regions and lut2 tables,
 *   `npm run bench:composite`, "Media outside the browser") and mixes their fading frames.
 *
 * Everything else that touches a container or a bitstream goes through ffmpeg.
 */
export { FADABLE_X264_PARAMS, HOLDABLE_X264_PARAMS, holdableX264Params, isHeldKeyframe, spliceHeldFrames, type SplicedPicture } from './h264-holds';
export { mpegTransportStream } from './mpeg-ts';
export { decodeRgbaPng, encodeRgbaPng, mixRgba, readPng, unfilter, type RgbaPicture } from './png';
