/**
 * Bit-level pieces for reading and writing H.264 NAL units (ITU-T H.264 §7): Annex B splitting,
 * emulation prevention, Exp-Golomb codes.
 */

export interface Nal {
  type: number;
  refIdc: number;
  /** Without the start code, with emulation prevention bytes, header byte included. */
  bytes: Buffer;
}

export const NAL_SLICE = 1;
export const NAL_IDR = 5;
export const NAL_SEI = 6;
export const NAL_SPS = 7;
export const NAL_PPS = 8;
export const NAL_AUD = 9;

export const START_CODE = Buffer.from([0, 0, 0, 1]);

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
export function unescape(payload: Buffer): Buffer {
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
export function escape(rbsp: Buffer): Buffer {
  const out = Buffer.allocUnsafe(rbsp.length + (rbsp.length >> 1) + 1);
  let length = 0;
  let zeros = 0;
  for (const byte of rbsp) {
    if (zeros >= 2 && byte <= 3) {
      out[length++] = 3;
      zeros = 0;
    }
    out[length++] = byte;
    zeros = byte === 0 ? zeros + 1 : 0;
  }
  return out.subarray(0, length);
}

/** Overwrites `width` bits at bit `position` of `bytes` with `value`, most significant first. */
export function writeBits(bytes: Buffer, position: number, width: number, value: number): void {
  for (let bit = 0; bit < width; bit++) {
    const at = position + bit;
    const mask = 0x80 >> (at % 8);
    if ((value >> (width - 1 - bit)) & 1) bytes[at >> 3] |= mask;
    else bytes[at >> 3] &= ~mask;
  }
}

/**
 * `bytes` with the 16-bit `value` inserted at bit `position`. Everything after moves by exactly two
 * bytes, so byte alignment further on (CABAC slice data, trailing bits) is kept as it was.
 */
export function insert16Bits(bytes: Buffer, position: number, value: number): Buffer {
  const at = position >> 3;
  const before = position % 8;
  const byte = bytes[at] ?? 0;
  const after = 8 - before;
  // The split byte's first bits, the value, then the split byte's remaining bits: 24 bits.
  const merged = ((byte >> after) << (16 + after)) | ((value & 0xffff) << after) | (byte & ((1 << after) - 1));
  return Buffer.concat([bytes.subarray(0, at), Buffer.from([(merged >> 16) & 0xff, (merged >> 8) & 0xff, merged & 0xff]), bytes.subarray(at + 1)]);
}

export class BitReader {
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

  /** Position of the RBSP stop bit (the last one bit). */
  stopBit(): number {
    let last = this.bytes.length - 1;
    while (last >= 0 && this.bytes[last] === 0) last--;
    if (last < 0) throw new Error('An RBSP without its stop bit');
    let bit = 7;
    while (((this.bytes[last] >> (7 - bit)) & 1) === 0) bit--;
    return last * 8 + bit;
  }
}

export class BitWriter {
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

  /** Copies bits [from, to) of `reader`'s bytes (leaves the reader at `to`). */
  copy(reader: BitReader, from: number, to: number): void {
    reader.position = from;
    while (reader.position < to) this.bits.push(reader.u(1));
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
