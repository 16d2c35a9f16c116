/**
 * Hand-written bitstream code, kept because ffmpeg offers no way to do what it does and
 * `npm run bench:codec` shows it saves far more than 20 % on a named case (issue 32; figures in
 * docs/performance.md, "Figures the code relies on", and docs/performance-log/2026-11-27-codec.md):
 *
 * - h264-holds.ts, h264-bits.ts: x264's pictures spliced with skip pictures (held frames) and
 *   decoder-mixed B pictures (fades). The 30 s 1080p slideshow (30 pictures, 12-frame crossfades):
 *   skip pictures for the repeats save 28 % of the CPU of x264 encoding every frame (41.5 against
 *   57.4 CPU s); with the fades as the decoder's mix, 93 % (3.8 CPU s).
 * - mpeg-ts.ts: carries those access units with their decoding and presentation times into
 *   ffmpeg, which copies them into the MP4. ffmpeg's own raw H.264 reader stamps pictures in
 *   decoding order, which loses a frame once a fade is decoded after the picture it fades into; the
 *   way left, x264 encoding the fading frames, takes 41.5 CPU s on the slideshow where this takes 3.8 (91 % saved).
 *
 * Everything else that touches a container, a bitstream or an image file goes through ffmpeg (the
 * PNG reader and writer that were here: ffmpeg decodes the same PNGs in less CPU, bench:codec).
 */
export { FADABLE_X264_PARAMS, HOLDABLE_X264_PARAMS, holdableX264Params, isHeldKeyframe, spliceHeldFrames, type SplicedPicture } from './h264-holds';
export { mpegTransportStream } from './mpeg-ts';
