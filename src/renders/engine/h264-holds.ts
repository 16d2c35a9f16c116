/**
 * Held frames without the encoder: x264 encodes each distinct picture of a timeline once, and the
 * frames that repeat it are written here as pictures whose every macroblock is skipped (a copy of
 * the previous picture, bit for bit, costing a few bytes and no encoding at all). x264 analyses a
 * repeated 1080p frame for ≈ 10–15 ms of CPU even when nothing changed; a held slideshow is mostly
 * such frames (docs/performance.md).
 *
 * What makes the copy exact and the splice legal H.264:
 * - x264 runs without B-frames and with one reference (HOLDABLE_X264_PARAMS): decoding order is
 *   display order, every picture is a reference, and the only picture any frame predicts from is
 *   the one just before it — which, after a held run, is the last skip picture, equal to the held
 *   one. Its picture order count is then derived from frame_num (type 2).
 * - The skip pictures are reference P pictures (type 2 allows no two non-reference pictures in a
 *   row) in CAVLC through a parameter set of their own (SKIP_PPS_ID), whose slice data is one
 *   `mb_skip_run` over the whole picture; deblocking does nothing between skipped macroblocks of the
 *   same reference and motion, and is switched off besides.
 * - Every picture after an insertion gets its frame_num renumbered (a fixed-width field, rewritten
 *   in place, so the CABAC data after the header is untouched).
 */

/** x264 settings a stream needs for spliceHeldFrames. */
export const HOLDABLE_X264_PARAMS = 'bframes=0:ref=1';

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

/** The picture parameter set id the skip pictures use (x264 uses 0). */
const SKIP_PPS_ID = 1;

const NAL_SLICE = 1;
const NAL_IDR = 5;
const NAL_SPS = 7;
const NAL_PPS = 8;

interface Nal {
  type: number;
  refIdc: number;
  /** Without the start code, with emulation prevention bytes, header byte included. */
  bytes: Buffer;
}

interface SequenceParameters {
  id: number;
  log2MaxFrameNum: number;
  pocType: number;
  mbsInPicture: number;
  separateColourPlane: boolean;
}

/**
 * The Annex B stream `encoded` (one access unit per frame, as x264 wrote it with
 * HOLDABLE_X264_PARAMS) with its i-th picture shown `holds[i]` times: each extra time a skip
 * picture. Throws when the stream is not one that can be spliced that way.
 */
export function spliceHeldFrames(encoded: Buffer, holds: readonly number[]): Buffer {
  const nals = splitAnnexB(encoded);
  const spsNal = nals.find((nal) => nal.type === NAL_SPS);
  if (!spsNal) throw new Error('No sequence parameter set in the stream');
  const sps = parseSps(unescape(spsNal.bytes.subarray(1)));
  if (sps.pocType !== 2) throw new Error(`Picture order count type ${sps.pocType}: the stream has B-frames`);
  if (sps.separateColourPlane) throw new Error('Separate colour planes are not spliced');
  const maxFrameNum = 2 ** sps.log2MaxFrameNum;

  const out: Buffer[] = [];
  const startCode = Buffer.from([0, 0, 0, 1]);
  const emit = (bytes: Buffer) => out.push(startCode, bytes);
  let picture = -1;
  let frameNum = 0;
  let skipPpsWritten = false;
  const skipsAfter = (index: number) => {
    if (index < 0) return;
    const hold = holds[index];
    if (hold === undefined) throw new Error(`The stream has more pictures than the ${holds.length} held runs`);
    for (let copy = 1; copy < hold; copy++) {
      frameNum = (frameNum + 1) % maxFrameNum;
      emit(skipSlice(sps, frameNum));
    }
  };
  for (const nal of nals) {
    if (nal.type === NAL_SLICE || nal.type === NAL_IDR) {
      const rbsp = unescape(nal.bytes.subarray(1));
      const header = new BitReader(rbsp);
      const firstMb = header.ue();
      if (firstMb === 0) {
        // A new picture: the previous one's holds go first.
        if (nal.refIdc === 0) throw new Error('A picture that is not a reference: the stream has B-frames or non-reference pictures');
        skipsAfter(picture);
        picture++;
        frameNum = nal.type === NAL_IDR ? 0 : (frameNum + 1) % maxFrameNum;
      }
      header.ue(); // slice_type
      const ppsId = header.ue();
      if (ppsId === SKIP_PPS_ID) throw new Error(`The stream already uses picture parameter set ${SKIP_PPS_ID}`);
      if (nal.type === NAL_IDR && frameNum !== 0) throw new Error('An IDR slice in the middle of a picture');
      writeBits(rbsp, header.position, sps.log2MaxFrameNum, frameNum);
      emit(Buffer.concat([nal.bytes.subarray(0, 1), escape(rbsp)]));
      continue;
    }
    emit(nal.bytes);
    if (nal.type === NAL_PPS) {
      // After each of x264's own (a keyframe sends them again): muxers take the first two as the
      // stream's setup, and a decoder joining at a keyframe finds it.
      emit(skipPps(sps.id));
      skipPpsWritten = true;
    }
  }
  if (!skipPpsWritten) throw new Error('No picture parameter set in the stream');
  skipsAfter(picture);
  if (picture + 1 !== holds.length) throw new Error(`The stream has ${picture + 1} pictures for ${holds.length} held runs`);
  return Buffer.concat(out);
}

/** A CAVLC picture parameter set for skip slices: one reference, no weights, deblocking switchable. */
function skipPps(spsId: number): Buffer {
  const bits = new BitWriter();
  bits.ue(SKIP_PPS_ID);
  bits.ue(spsId);
  bits.u(1, 0); // entropy_coding_mode_flag: CAVLC
  bits.u(1, 0); // bottom_field_pic_order_in_frame_present_flag
  bits.ue(0); // num_slice_groups_minus1
  bits.ue(0); // num_ref_idx_l0_default_active_minus1
  bits.ue(0); // num_ref_idx_l1_default_active_minus1
  bits.u(1, 0); // weighted_pred_flag
  bits.u(2, 0); // weighted_bipred_idc
  bits.se(0); // pic_init_qp_minus26
  bits.se(0); // pic_init_qs_minus26
  bits.se(0); // chroma_qp_index_offset
  bits.u(1, 1); // deblocking_filter_control_present_flag
  bits.u(1, 0); // constrained_intra_pred_flag
  bits.u(1, 0); // redundant_pic_cnt_present_flag
  return Buffer.concat([Buffer.from([(3 << 5) | NAL_PPS]), escape(bits.trailing())]);
}

/** One P slice covering the picture, every macroblock skipped: a copy of the previous picture. */
function skipSlice(sps: SequenceParameters, frameNum: number): Buffer {
  const bits = new BitWriter();
  bits.ue(0); // first_mb_in_slice
  bits.ue(5); // slice_type: P, and every slice of the picture is P
  bits.ue(SKIP_PPS_ID);
  bits.u(sps.log2MaxFrameNum, frameNum);
  // Frames only (parseSps refuses fields), not IDR, picture order count from frame_num (type 2).
  bits.u(1, 0); // num_ref_idx_active_override_flag
  bits.u(1, 0); // ref_pic_list_modification_flag_l0
  bits.u(1, 0); // adaptive_ref_pic_marking_mode_flag: sliding window
  bits.se(0); // slice_qp_delta
  bits.ue(1); // disable_deblocking_filter_idc: off
  bits.ue(sps.mbsInPicture); // mb_skip_run: the whole picture
  return Buffer.concat([Buffer.from([(2 << 5) | NAL_SLICE]), escape(bits.trailing())]);
}

function parseSps(rbsp: Buffer): SequenceParameters {
  const bits = new BitReader(rbsp);
  const profile = bits.u(8);
  bits.u(16); // constraint flags, level
  const id = bits.ue();
  let separateColourPlane = false;
  if ([100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].includes(profile)) {
    const chromaFormat = bits.ue();
    if (chromaFormat === 3) separateColourPlane = bits.u(1) === 1;
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
  const pocType = bits.ue();
  if (pocType === 0) bits.ue();
  else if (pocType === 1) throw new Error('Picture order count type 1 is not spliced');
  bits.ue(); // max_num_ref_frames
  bits.u(1); // gaps_in_frame_num_value_allowed_flag
  const widthInMbs = bits.ue() + 1;
  const heightInMapUnits = bits.ue() + 1;
  if (bits.u(1) !== 1) throw new Error('Interlaced streams are not spliced');
  return { id, log2MaxFrameNum, pocType, mbsInPicture: widthInMbs * heightInMapUnits, separateColourPlane };
}

function skipScalingList(bits: BitReader, size: number): void {
  let last = 8;
  let next = 8;
  for (let j = 0; j < size; j++) {
    if (next !== 0) next = (last + bits.se() + 256) % 256;
    last = next === 0 ? last : next;
  }
}

/** NAL units of an Annex B byte stream (start codes of three or four bytes). */
export function splitAnnexB(stream: Buffer): Nal[] {
  const starts: { at: number; payload: number }[] = [];
  for (let i = 0; i + 2 < stream.length; i++) {
    if (stream[i] === 0 && stream[i + 1] === 0 && stream[i + 2] === 1) {
      starts.push({ at: i > 0 && stream[i - 1] === 0 ? i - 1 : i, payload: i + 3 });
      i += 2;
    }
  }
  return starts.map(({ payload }, index) => {
    let end = index + 1 < starts.length ? starts[index + 1].at : stream.length;
    // Trailing zero bytes belong to no NAL unit.
    while (end > payload && stream[end - 1] === 0) end--;
    const bytes = stream.subarray(payload, end);
    return { type: bytes[0] & 0x1f, refIdc: (bytes[0] >> 5) & 3, bytes };
  });
}

/** The RBSP of a NAL payload: emulation prevention bytes (0x000003) removed. */
function unescape(payload: Buffer): Buffer {
  const out = Buffer.alloc(payload.length);
  let length = 0;
  let zeros = 0;
  for (const byte of payload) {
    if (zeros >= 2 && byte === 3) {
      zeros = 0;
      continue;
    }
    out[length++] = byte;
    zeros = byte === 0 ? zeros + 1 : 0;
  }
  return out.subarray(0, length);
}

/** A NAL payload from an RBSP: 0x03 after two zero bytes wherever the next byte is 0..3. */
function escape(rbsp: Buffer): Buffer {
  const out: number[] = [];
  let zeros = 0;
  for (const byte of rbsp) {
    if (zeros >= 2 && byte <= 3) {
      out.push(3);
      zeros = 0;
    }
    out.push(byte);
    zeros = byte === 0 ? zeros + 1 : 0;
  }
  return Buffer.from(out);
}

/** Overwrites `width` bits at bit `position` of `bytes` with `value`, most significant first. */
function writeBits(bytes: Buffer, position: number, width: number, value: number): void {
  for (let bit = 0; bit < width; bit++) {
    const at = position + bit;
    const mask = 0x80 >> (at % 8);
    if ((value >> (width - 1 - bit)) & 1) bytes[at >> 3] |= mask;
    else bytes[at >> 3] &= ~mask;
  }
}

class BitReader {
  position = 0;
  private readonly bytes: Buffer;

  constructor(bytes: Buffer) {
    this.bytes = bytes;
  }

  u(width: number): number {
    let value = 0;
    for (let bit = 0; bit < width; bit++) {
      if (this.position >= this.bytes.length * 8) throw new Error('A parameter set or slice header ends early');
      value = value * 2 + ((this.bytes[this.position >> 3] >> (7 - (this.position % 8))) & 1);
      this.position++;
    }
    return value;
  }

  ue(): number {
    let zeros = 0;
    while (this.u(1) === 0) {
      if (++zeros > 31) throw new Error('An Exp-Golomb code longer than 32 bits');
    }
    return 2 ** zeros - 1 + this.u(zeros);
  }

  se(): number {
    const code = this.ue();
    return code % 2 === 1 ? (code + 1) / 2 : -code / 2;
  }
}

class BitWriter {
  private readonly bits: number[] = [];

  u(width: number, value: number): void {
    for (let bit = width - 1; bit >= 0; bit--) this.bits.push(Math.floor(value / 2 ** bit) % 2);
  }

  ue(value: number): void {
    const code = value + 1;
    const length = Math.floor(Math.log2(code));
    this.u(length, 0);
    this.u(length + 1, code);
  }

  se(value: number): void {
    this.ue(value > 0 ? 2 * value - 1 : -2 * value);
  }

  /** The bits with rbsp_trailing_bits (a one, then zeros to the byte). */
  trailing(): Buffer {
    const bits = [...this.bits, 1];
    while (bits.length % 8 !== 0) bits.push(0);
    const out = Buffer.alloc(bits.length / 8);
    bits.forEach((bit, index) => {
      if (bit) out[index >> 3] |= 0x80 >> (index % 8);
    });
    return out;
  }
}
