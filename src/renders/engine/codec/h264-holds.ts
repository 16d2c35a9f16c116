import {
  BitReader, BitWriter, escape, insert16Bits, NAL_IDR, NAL_PPS, NAL_SLICE, NAL_SPS, splitAnnexB, START_CODE, unescape, writeBits, type Nal,
} from './h264-bits';

/**
 * Held and fading frames without the encoder. x264 encodes each distinct picture of a timeline
 * once; the frames that repeat it are written here as pictures whose every macroblock is skipped (a
 * copy of the previous picture, bit for bit, costing a few bytes and no encoding at all), and the
 * frames of a fade between two encoded pictures as pictures whose every macroblock is skipped in a
 * B slice with explicit weights: the decoder mixes the two pictures itself, (1 − w)·A + w·B to
 * 1/128. x264 analyses a repeated 1080p frame for ≈ 10–15 ms of CPU even when nothing changed, and
 * a fading one for ≈ 35 ms; a slideshow is mostly such frames (docs/performance.md).
 *
 * What makes the splice legal H.264 and the copies exact:
 * - x264 runs without B-frames and with one reference (HOLDABLE_X264_PARAMS): every picture it
 *   writes is a reference predicting only from the picture just before it — which, after a held
 *   run, is the last skip picture, equal to the held one.
 * - Its sequence parameter set is rewritten: picture order counts are written in each slice
 *   (type 0, 16 bits) instead of following decoding order, two reference frames, and a frame may
 *   wait one frame to be shown. Each slice header of x264's gets its frame_num renumbered in place
 *   and the 16-bit order count inserted after it: two bytes, so CABAC data stays byte-aligned.
 * - A picture faded into is decoded before the fading frames (it is shown after them): the
 *   reference list of each fading frame is then the picture before (list 0) and after (list 1).
 *   Fading frames are not references, so the repeats after them copy the picture faded into.
 *   The picture faded into must not be an IDR (that would drop the one before it):
 *   fadableX264Params keeps IDRs on a fixed count of x264's pictures, so the caller can tell.
 * - Skip and fading pictures are CAVLC through a parameter set of their own (SKIP_PPS_ID), their
 *   slice data one `mb_skip_run` over the whole picture; deblocking is off.
 */

/** x264 settings a stream needs for spliceHeldFrames. */
export const HOLDABLE_X264_PARAMS = 'bframes=0:ref=1';

/** x264 makes every HELD_KEYINT-th picture it is given an IDR, and no other (no scene cuts). */
export const HELD_KEYINT = 250;

/** HOLDABLE_X264_PARAMS with IDRs only every HELD_KEYINT-th picture: what a stream with fades needs. */
export const FADABLE_X264_PARAMS = `${HOLDABLE_X264_PARAMS}:scenecut=0:keyint=${HELD_KEYINT}:min-keyint=${HELD_KEYINT}`;

/** Whether x264, run with FADABLE_X264_PARAMS, makes its `index`-th picture an IDR. */
export function isHeldKeyframe(index: number): boolean {
  return index % HELD_KEYINT === 0;
}

/**
 * Bitrate factors (x264 zones) that give the pictures of a held stream at least the quality x264
 * gives them when it encodes every frame. There, its macroblock tree sees a held picture
 * referenced by every repeat and spends more on it; here it sees each picture once. And without
 * B-frames a fade is a chain of P pictures, each quantising its change again. Measured on the
 * slideshow (docs/performance.md): ×2 for a held picture and ×1.2 for a picture shown once match
 * encoding every frame in PSNR (average and worst frame) in about a quarter more bytes.
 */
export const HELD_PICTURE_BITRATE = 2;
export const SINGLE_PICTURE_BITRATE = 1.2;

/** HOLDABLE_X264_PARAMS with the zones of HELD_PICTURE_BITRATE and SINGLE_PICTURE_BITRATE for these holds. */
export function holdableX264Params(holds: readonly number[]): string {
  const zones: string[] = [];
  let start = 0;
  for (let index = 1; index <= holds.length; index++) {
    const held = (i: number) => holds[i] > 1;
    // Consecutive pictures shown once share a zone; each held picture has its own.
    if (index === holds.length || held(index) || held(start)) {
      zones.push(`${start},${index - 1},b=${held(start) ? HELD_PICTURE_BITRATE : SINGLE_PICTURE_BITRATE}`);
      start = index;
    }
  }
  return zones.length > 0 ? `${HOLDABLE_X264_PARAMS}:zones=${zones.join('/')}` : HOLDABLE_X264_PARAMS;
}

/** One of x264's pictures as the output shows it. */
export interface SplicedPicture {
  /** Output frames showing the picture: itself, then hold − 1 skip pictures. */
  hold: number;
  /**
   * Fading frames shown just before it, each mixed from the picture before (as last shown) and
   * this one: this one's weight in each, in (0, 1).
   */
  fadeIn?: readonly number[];
}

/** One output picture in decoding order: Annex B bytes (with any parameter sets before it) and its place in display order. */
export interface AccessUnit {
  display: number;
  bytes: Buffer;
}

/** The picture parameter set id of the skip and fading pictures (x264 uses 0). */
const SKIP_PPS_ID = 1;
/** Bits of pic_order_cnt_lsb: two bytes, the inserted size that keeps alignment. */
const POC_LSB_BITS = 16;
/** Fading weights are in 1/2^(FADE_LOG2_DENOMINATOR + 1) = 1/128. */
const FADE_LOG2_DENOMINATOR = 6;

interface SequenceParameters {
  id: number;
  log2MaxFrameNum: number;
  pocType: number;
  chromaArrayType: number;
  mbsInPicture: number;
}

/**
 * The Annex B stream `encoded` (one access unit per frame, as x264 wrote it with
 * HOLDABLE_X264_PARAMS) with its i-th picture shown as `pictures[i]` says, in decoding order.
 * Throws when the stream is not one that can be spliced that way.
 */
export function spliceHeldFrames(encoded: Buffer, pictures: readonly SplicedPicture[]): AccessUnit[] {
  const nals = splitAnnexB(encoded);
  const spsNal = nals.find((nal) => nal.type === NAL_SPS);
  if (!spsNal) throw new Error('No sequence parameter set in the stream');
  const fades = pictures.some((picture) => (picture.fadeIn?.length ?? 0) > 0);
  const { sps, rewritten } = rewriteSps(unescape(spsNal.bytes.subarray(1)), fades);
  const newSps = Buffer.concat([spsNal.bytes.subarray(0, 1), escape(rewritten)]);
  const maxFrameNum = 2 ** sps.log2MaxFrameNum;
  const skipPps = skipPpsNal(sps.id);

  // x264's pictures: the NAL units before each (parameter sets, SEI) and its slices.
  const coded: { prefix: Nal[]; slices: Nal[]; idr: boolean }[] = [];
  let prefix: Nal[] = [];
  for (const nal of nals) {
    if (nal.type !== NAL_SLICE && nal.type !== NAL_IDR) {
      prefix.push(nal);
      continue;
    }
    if (nal.refIdc === 0) throw new Error('A picture that is not a reference: the stream has B-frames or non-reference pictures');
    const firstMb = new BitReader(unescape(nal.bytes.subarray(1, 6))).ue();
    if (firstMb === 0) {
      coded.push({ prefix, slices: [nal], idr: nal.type === NAL_IDR });
      prefix = [];
    } else {
      if (coded.length === 0) throw new Error('A slice before the first picture');
      coded[coded.length - 1].slices.push(nal);
    }
  }
  if (coded.length > pictures.length) throw new Error(`The stream has more pictures than the ${pictures.length} held runs`);
  if (coded.length !== pictures.length) throw new Error(`The stream has ${coded.length} pictures for ${pictures.length} held runs`);

  const units: AccessUnit[] = [];
  let display = 0;
  let idrDisplay = 0;
  let frameNum = 0;
  const orderCount = (at: number) => (2 * (at - idrDisplay)) % 2 ** POC_LSB_BITS;
  coded.forEach((picture, index) => {
    const fadeIn = pictures[index].fadeIn ?? [];
    if (fadeIn.length > 0 && (index === 0 || picture.idr)) throw new Error(`Picture ${index} is faded into but ${index === 0 ? 'is the first' : 'is an IDR'}`);
    const shownAt = display + fadeIn.length;
    if (picture.idr) idrDisplay = shownAt;
    frameNum = picture.idr ? 0 : (frameNum + 1) % maxFrameNum;
    const parts: Buffer[] = [];
    let ppsWritten = false;
    for (const nal of picture.prefix) {
      parts.push(START_CODE, nal.type === NAL_SPS ? newSps : nal.bytes);
      if (nal.type === NAL_PPS) {
        checkPps(nal);
        // After each of x264's own (a keyframe sends them again): muxers take the first two as the
        // stream's setup, and a decoder joining at a keyframe finds it.
        parts.push(START_CODE, skipPps);
        ppsWritten = true;
      }
    }
    if (index === 0 && !ppsWritten) throw new Error('No picture parameter set in the stream');
    for (const slice of picture.slices) parts.push(START_CODE, renumberSlice(slice, sps, frameNum, orderCount(shownAt)));
    units.push({ display: shownAt, bytes: Buffer.concat(parts) });
    // Not references: each takes the frame_num after this picture's, as the next reference does.
    fadeIn.forEach((weight, fade) => units.push({ display: display + fade, bytes: Buffer.concat([START_CODE, fadeSlice(sps, (frameNum + 1) % maxFrameNum, orderCount(display + fade), weight)]) }));
    for (let copy = 1; copy < pictures[index].hold; copy++) {
      frameNum = (frameNum + 1) % maxFrameNum;
      units.push({ display: shownAt + copy, bytes: Buffer.concat([START_CODE, skipSlice(sps, frameNum, orderCount(shownAt + copy))]) });
    }
    display = shownAt + pictures[index].hold;
  });
  return units;
}

/** x264's slice with its frame_num set and the picture order count inserted after it (and idr_pic_id). */
function renumberSlice(nal: Nal, sps: SequenceParameters, frameNum: number, orderCount: number): Buffer {
  const rbsp = unescape(nal.bytes.subarray(1));
  const header = new BitReader(rbsp);
  header.ue(); // first_mb_in_slice
  header.ue(); // slice_type
  const ppsId = header.ue();
  if (ppsId === SKIP_PPS_ID) throw new Error(`The stream already uses picture parameter set ${SKIP_PPS_ID}`);
  writeBits(rbsp, header.position, sps.log2MaxFrameNum, frameNum);
  header.position += sps.log2MaxFrameNum;
  if (nal.type === NAL_IDR) header.ue(); // idr_pic_id
  return Buffer.concat([nal.bytes.subarray(0, 1), escape(insert16Bits(rbsp, header.position, orderCount))]);
}

/** x264's picture parameter sets must not expect a bottom field order count in the slices. */
function checkPps(nal: Nal): void {
  const bits = new BitReader(unescape(nal.bytes.subarray(1)));
  bits.ue(); // pic_parameter_set_id
  bits.ue(); // seq_parameter_set_id
  bits.u(1); // entropy_coding_mode_flag
  if (bits.u(1) !== 0) throw new Error('A picture parameter set with bottom field order counts');
}

/** A CAVLC picture parameter set for skip and fading slices: one reference per list, explicit bi-predictive weights, deblocking switchable. */
function skipPpsNal(spsId: number): Buffer {
  const bits = new BitWriter();
  bits.ue(SKIP_PPS_ID);
  bits.ue(spsId);
  bits.u(1, 0); // entropy_coding_mode_flag: CAVLC
  bits.u(1, 0); // bottom_field_pic_order_in_frame_present_flag
  bits.ue(0); // num_slice_groups_minus1
  bits.ue(0); // num_ref_idx_l0_default_active_minus1
  bits.ue(0); // num_ref_idx_l1_default_active_minus1
  bits.u(1, 0); // weighted_pred_flag: P slices unweighted
  bits.u(2, 1); // weighted_bipred_idc: explicit weights in B slices
  bits.se(0); // pic_init_qp_minus26
  bits.se(0); // pic_init_qs_minus26
  bits.se(0); // chroma_qp_index_offset
  bits.u(1, 1); // deblocking_filter_control_present_flag
  bits.u(1, 0); // constrained_intra_pred_flag
  bits.u(1, 0); // redundant_pic_cnt_present_flag
  return Buffer.concat([Buffer.from([(3 << 5) | NAL_PPS]), escape(bits.trailing())]);
}

/** slice_type values saying every slice of the picture has that type. */
const SLICE_TYPE_ALL_P = 5;
const SLICE_TYPE_ALL_B = 6;

/**
 * The fields every slice of ours starts with: the whole picture from macroblock 0, through
 * SKIP_PPS_ID, frame_num and the picture order count (frames only, as rewriteSps requires; never IDR).
 */
function sliceHeaderStart(sliceType: number, sps: SequenceParameters, frameNum: number, orderCount: number): BitWriter {
  const bits = new BitWriter();
  bits.ue(0); // first_mb_in_slice
  bits.ue(sliceType);
  bits.ue(SKIP_PPS_ID);
  bits.u(sps.log2MaxFrameNum, frameNum);
  bits.u(POC_LSB_BITS, orderCount);
  return bits;
}

/** One P slice covering the picture, every macroblock skipped: a copy of the previous picture. */
function skipSlice(sps: SequenceParameters, frameNum: number, orderCount: number): Buffer {
  const bits = sliceHeaderStart(SLICE_TYPE_ALL_P, sps, frameNum, orderCount);
  bits.u(1, 0); // num_ref_idx_active_override_flag
  bits.u(1, 0); // ref_pic_list_modification_flag_l0
  bits.u(1, 0); // adaptive_ref_pic_marking_mode_flag: sliding window
  bits.se(0); // slice_qp_delta
  bits.ue(1); // disable_deblocking_filter_idc: off
  bits.ue(sps.mbsInPicture); // mb_skip_run: the whole picture
  return Buffer.concat([Buffer.from([(2 << 5) | NAL_SLICE]), escape(bits.trailing())]);
}

/**
 * One B slice covering the picture, every macroblock skipped: with spatial direct prediction and
 * no neighbour moving, each predicts with no motion from reference 0 of both lists (the pictures
 * before and after), mixed by the explicit weights: (w0·A + w1·B + 64) >> 7.
 */
function fadeSlice(sps: SequenceParameters, frameNum: number, orderCount: number, weight: number): Buffer {
  const after = Math.min(127, Math.max(1, Math.round(weight * 2 ** (FADE_LOG2_DENOMINATOR + 1))));
  const bits = sliceHeaderStart(SLICE_TYPE_ALL_B, sps, frameNum, orderCount);
  bits.u(1, 1); // direct_spatial_mv_pred_flag
  bits.u(1, 0); // num_ref_idx_active_override_flag: one each
  bits.u(1, 0); // ref_pic_list_modification_flag_l0
  bits.u(1, 0); // ref_pic_list_modification_flag_l1
  bits.ue(FADE_LOG2_DENOMINATOR); // luma_log2_weight_denom
  if (sps.chromaArrayType !== 0) bits.ue(FADE_LOG2_DENOMINATOR); // chroma_log2_weight_denom
  for (const listWeight of [2 ** (FADE_LOG2_DENOMINATOR + 1) - after, after]) {
    bits.u(1, 1); // luma_weight_flag
    bits.se(listWeight);
    bits.se(0); // offset
    if (sps.chromaArrayType !== 0) {
      bits.u(1, 1); // chroma_weight_flag
      for (let component = 0; component < 2; component++) {
        bits.se(listWeight);
        bits.se(0);
      }
    }
  }
  // Not a reference: no dec_ref_pic_marking.
  bits.se(0); // slice_qp_delta
  bits.ue(1); // disable_deblocking_filter_idc: off
  bits.ue(sps.mbsInPicture); // mb_skip_run: the whole picture
  return Buffer.concat([Buffer.from([NAL_SLICE]), escape(bits.trailing())]);
}

/**
 * x264's sequence parameter set with picture order counts in the slices (type 0, POC_LSB_BITS) and,
 * with `fades`, room for them: two reference frames, a frame may wait one to be shown, and Main
 * profile where x264 wrote Baseline (which has no B slices).
 */
function rewriteSps(rbsp: Buffer, fades: boolean): { sps: SequenceParameters; rewritten: Buffer } {
  const bits = new BitReader(rbsp);
  const out = new BitWriter();
  const profile = bits.u(8);
  const constraints = bits.u(8);
  if (fades && profile === 66) {
    out.u(8, 77);
    out.u(8, constraints & 0x40 ? 0x40 : 0); // constraint_set1: decodable as Main
  } else {
    out.u(8, profile);
    out.u(8, constraints);
  }
  bits.u(8); // level_idc
  const id = bits.ue();
  let chromaArrayType = 1;
  if ([100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].includes(profile)) {
    const chromaFormat = bits.ue();
    chromaArrayType = chromaFormat;
    if (chromaFormat === 3 && bits.u(1) === 1) throw new Error('Separate colour planes are not spliced');
    bits.ue(); // bit_depth_luma_minus8
    bits.ue(); // bit_depth_chroma_minus8
    bits.u(1); // qpprime_y_zero_transform_bypass_flag
    if (bits.u(1) === 1) {
      for (let list = 0; list < (chromaFormat !== 3 ? 8 : 12); list++) {
        if (bits.u(1) === 1) skipScalingList(bits, list < 6 ? 16 : 64);
      }
    }
  }
  const log2MaxFrameNum = bits.ue() + 4;
  const pocStart = bits.position;
  const pocType = bits.ue();
  if (pocType !== 2) throw new Error(`Picture order count type ${pocType}: the stream has B-frames`);
  out.copy(bits, 16, pocStart);
  bits.position = pocStart;
  bits.ue();
  out.ue(0); // pic_order_cnt_type
  out.ue(POC_LSB_BITS - 4); // log2_max_pic_order_cnt_lsb_minus4
  const maxRefFrames = bits.ue();
  const references = fades ? Math.max(maxRefFrames, 2) : maxRefFrames;
  out.ue(references);
  const fromGaps = bits.position;
  bits.u(1); // gaps_in_frame_num_value_allowed_flag
  const widthInMbs = bits.ue() + 1;
  const heightInMapUnits = bits.ue() + 1;
  if (bits.u(1) !== 1) throw new Error('Interlaced streams are not spliced');
  bits.u(1); // direct_8x8_inference_flag
  if (bits.u(1) === 1) for (let side = 0; side < 4; side++) bits.ue(); // frame_crop_*
  const sps: SequenceParameters = { id, log2MaxFrameNum, pocType, chromaArrayType, mbsInPicture: widthInMbs * heightInMapUnits };
  const restriction = bits.u(1) === 1 ? bitstreamRestriction(bits) : null;
  const stop = bits.stopBit();
  if (!restriction || !fades) {
    out.copy(bits, fromGaps, stop);
  } else {
    out.copy(bits, fromGaps, restriction.start);
    bits.position = restriction.start;
    out.ue(Math.max(bits.ue(), 1)); // max_num_reorder_frames
    out.ue(Math.max(bits.ue(), references)); // max_dec_frame_buffering
    out.copy(bits, bits.position, stop);
  }
  return { sps, rewritten: out.trailing() };
}

/** Reads the VUI; where its max_num_reorder_frames starts, if it has a bitstream restriction. */
function bitstreamRestriction(bits: BitReader): { start: number } | null {
  if (bits.u(1) === 1 && bits.u(8) === 255) bits.u(32); // aspect ratio, extended SAR
  if (bits.u(1) === 1) bits.u(1); // overscan
  if (bits.u(1) === 1) {
    bits.u(4); // video_format, video_full_range_flag
    if (bits.u(1) === 1) bits.u(24); // colour description
  }
  if (bits.u(1) === 1) {
    bits.ue(); // chroma_sample_loc_type_top_field
    bits.ue(); // chroma_sample_loc_type_bottom_field
  }
  if (bits.u(1) === 1) {
    bits.u(32); // num_units_in_tick
    bits.u(32); // time_scale
    bits.u(1); // fixed_frame_rate_flag
  }
  const nalHrd = bits.u(1) === 1;
  if (nalHrd) skipHrd(bits);
  const vclHrd = bits.u(1) === 1;
  if (vclHrd) skipHrd(bits);
  if (nalHrd || vclHrd) bits.u(1); // low_delay_hrd_flag
  bits.u(1); // pic_struct_present_flag
  if (bits.u(1) !== 1) return null;
  bits.u(1); // motion_vectors_over_pic_boundaries_flag
  for (let field = 0; field < 4; field++) bits.ue(); // max_bytes_per_pic_denom … log2_max_mv_length_vertical
  const start = bits.position;
  bits.ue(); // max_num_reorder_frames
  bits.ue(); // max_dec_frame_buffering
  return { start };
}

function skipHrd(bits: BitReader): void {
  const count = bits.ue() + 1;
  bits.u(8); // bit_rate_scale, cpb_size_scale
  for (let index = 0; index < count; index++) {
    bits.ue();
    bits.ue();
    bits.u(1);
  }
  bits.u(20); // four 5-bit lengths
}

function skipScalingList(bits: BitReader, size: number): void {
  let last = 8;
  let next = 8;
  for (let j = 0; j < size; j++) {
    if (next !== 0) next = (last + bits.se() + 256) % 256;
    last = next === 0 ? last : next;
  }
}
