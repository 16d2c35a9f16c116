/**
 * A minimal MPEG transport stream (ISO/IEC 13818-1) carrying one H.264 video stream with explicit
 * decoding and presentation times. ffmpeg's raw H.264 reader stamps pictures in decoding order,
 * which is wrong once a picture is shown after ones decoded later (h264-holds.ts); a transport
 * stream carries both times, and ffmpeg copies them into the MP4 (`ctts`).
 */

const PACKET = 188;
const VIDEO_PID = 0x100;
const PMT_PID = 0x1000;
const CLOCK = 90_000;

export interface TimedUnit {
  /** Place in display order (frames). */
  display: number;
  /** Annex B bytes of one picture (parameter sets included). */
  bytes: Buffer;
}

/** The units in decoding order at `fps`: decoding time one frame apart, presentation time from `display`, one frame later so it never precedes decoding. */
export function mpegTransportStream(units: readonly TimedUnit[], fps: number): Buffer {
  const packets: Buffer[] = [tablePacket(0, patSection()), tablePacket(PMT_PID, pmtSection())];
  let continuity = 0;
  const ticks = (frame: number) => Math.round((frame * CLOCK) / fps) + CLOCK;
  units.forEach((unit, index) => {
    const dts = ticks(index);
    const pts = ticks(unit.display + 1);
    // An access unit delimiter starts each picture, so a reader splits pictures where the PES do.
    const payload = Buffer.concat([pesHeader(pts, dts), Buffer.from([0, 0, 0, 1, 9, 0xf0]), unit.bytes]);
    let offset = 0;
    let first = true;
    while (offset < payload.length) {
      const packet = Buffer.alloc(PACKET, 0xff);
      packet[0] = 0x47;
      packet[1] = (first ? 0x40 : 0) | (VIDEO_PID >> 8);
      packet[2] = VIDEO_PID & 0xff;
      // The first packet of each picture carries the clock reference (at its decoding time).
      const adaptation = first ? 8 : 0;
      const room = PACKET - 4 - adaptation;
      const take = Math.min(room, payload.length - offset);
      const stuffing = room - take;
      const fieldLength = adaptation + stuffing;
      packet[3] = (fieldLength > 0 ? 0x30 : 0x10) | continuity;
      continuity = (continuity + 1) % 16;
      let at = 4;
      if (fieldLength > 0) {
        // adaptation_field_length excludes itself; one stuffing byte is a zero-length field.
        packet[at++] = fieldLength - 1;
        if (fieldLength > 1) {
          packet[at++] = first ? 0x10 : 0; // PCR flag
          if (first) writePcr(packet, at, dts);
          // The rest of the field is 0xff stuffing.
          at = 4 + fieldLength;
        }
      }
      payload.copy(packet, at, offset, offset + take);
      offset += take;
      first = false;
      packets.push(packet);
    }
  });
  return Buffer.concat(packets);
}

function pesHeader(pts: number, dts: number): Buffer {
  const header = Buffer.alloc(19);
  header.set([0, 0, 1, 0xe0, 0, 0, 0x80, 0xc0, 10]);
  writeTimestamp(header, 9, 0x3, pts);
  writeTimestamp(header, 14, 0x1, dts);
  return header;
}

/** A 33-bit time in the PES layout: 4-bit prefix, 3 + 15 + 15 bits each followed by a marker bit. */
function writeTimestamp(buffer: Buffer, at: number, prefix: number, time: number): void {
  const high = Math.floor(time / 2 ** 30) & 0x7;
  const middle = Math.floor(time / 2 ** 15) & 0x7fff;
  const low = time & 0x7fff;
  buffer[at] = (prefix << 4) | (high << 1) | 1;
  buffer.writeUInt16BE((middle << 1) | 1, at + 1);
  buffer.writeUInt16BE((low << 1) | 1, at + 3);
}

/** program_clock_reference_base (33 bits), 6 reserved bits, extension 0. */
function writePcr(buffer: Buffer, at: number, base: number): void {
  buffer.writeUInt32BE(Math.floor(base / 2) >>> 0, at);
  buffer[at + 4] = ((base & 1) << 7) | 0x7e;
  buffer[at + 5] = 0;
}

function patSection(): Buffer {
  // program 1 → PMT_PID
  return section(0x00, 1, Buffer.from([0, 1, 0xe0 | (PMT_PID >> 8), PMT_PID & 0xff]));
}

function pmtSection(): Buffer {
  // PCR on the video PID, no program descriptors; stream type 0x1b (H.264) on VIDEO_PID.
  return section(0x02, 1, Buffer.from([0xe0 | (VIDEO_PID >> 8), VIDEO_PID & 0xff, 0xf0, 0, 0x1b, 0xe0 | (VIDEO_PID >> 8), VIDEO_PID & 0xff, 0xf0, 0]));
}

/** A long-form PSI section: header, body, CRC-32. */
function section(tableId: number, idExtension: number, body: Buffer): Buffer {
  const length = 5 + body.length + 4;
  const head = Buffer.from([tableId, 0xb0 | (length >> 8), length & 0xff, idExtension >> 8, idExtension & 0xff, 0xc1, 0, 0]);
  const withoutCrc = Buffer.concat([head, body]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32Mpeg(withoutCrc));
  return Buffer.concat([withoutCrc, crc]);
}

function tablePacket(pid: number, content: Buffer): Buffer {
  const packet = Buffer.alloc(PACKET, 0xff);
  packet.set([0x47, 0x40 | (pid >> 8), pid & 0xff, 0x10, 0]); // payload start, pointer_field 0
  content.copy(packet, 5);
  return packet;
}

/** CRC-32/MPEG-2: polynomial 0x04c11db7, not reflected, initial 0xffffffff, no final xor. */
function crc32Mpeg(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte << 24;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
  }
  return crc >>> 0;
}
