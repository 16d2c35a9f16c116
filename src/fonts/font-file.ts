import { brotliDecompressSync, inflateSync } from 'node:zlib';

export type FontFormat = 'truetype' | 'opentype' | 'woff' | 'woff2';

/** What the file says of itself: its format and the family name in its `name` table. */
export interface FontFileFacts {
  format: FontFormat;
  family: string | null;
}

/** Index of each table tag in WOFF2's table of known tags (only those read here). */
const WOFF2_NAME_TAG = 5;

/**
 * Reads a font file's header, table directory and `name` table (TrueType, OpenType/CFF, WOFF,
 * WOFF2), so a file that is not a font — a renamed picture — is refused before it reaches the
 * browser. Throws an Error saying what is wrong.
 */
export function readFontFile(bytes: Buffer): FontFileFacts {
  if (bytes.length < 12) throw new Error('the file is too short to be a font');
  const signature = bytes.toString('latin1', 0, 4);
  if (signature === 'wOF2') return { format: 'woff2', family: familyOf(woff2Name(bytes)) };
  if (signature === 'wOFF') return { format: 'woff', family: familyOf(woffName(bytes)) };
  const version = bytes.readUInt32BE(0);
  if (version === 0x00010000 || signature === 'true') return { format: 'truetype', family: familyOf(sfntName(bytes)) };
  if (signature === 'OTTO') return { format: 'opentype', family: familyOf(sfntName(bytes)) };
  throw new Error('the file is not a TrueType, OpenType, WOFF or WOFF2 font (its first bytes are no font signature)');
}

function within(bytes: Buffer, offset: number, length: number): void {
  if (offset < 0 || length < 0 || offset + length > bytes.length) throw new Error('a table of the font lies outside the file');
}

/** The offsets of the records of a table directory (each starting with its tag), checked to lie inside the file. */
function* tableRecords(bytes: Buffer, countAt: number, start: number, recordSize: number): Generator<number> {
  const tables = bytes.readUInt16BE(countAt);
  within(bytes, start, tables * recordSize);
  for (let i = 0; i < tables; i += 1) yield start + i * recordSize;
}

function sfntName(bytes: Buffer): Buffer | null {
  for (const record of tableRecords(bytes, 4, 12, 16)) {
    const offset = bytes.readUInt32BE(record + 8);
    const length = bytes.readUInt32BE(record + 12);
    within(bytes, offset, length);
    if (bytes.toString('latin1', record, record + 4) === 'name') return bytes.subarray(offset, offset + length);
  }
  return null;
}

function woffName(bytes: Buffer): Buffer | null {
  if (bytes.readUInt32BE(8) !== bytes.length) throw new Error('the WOFF header gives another length than the file has');
  for (const record of tableRecords(bytes, 12, 44, 20)) {
    const offset = bytes.readUInt32BE(record + 4);
    const compressed = bytes.readUInt32BE(record + 8);
    const original = bytes.readUInt32BE(record + 12);
    within(bytes, offset, compressed);
    if (bytes.toString('latin1', record, record + 4) !== 'name') continue;
    const data = bytes.subarray(offset, offset + compressed);
    return compressed < original ? inflateSync(data) : data;
  }
  return null;
}

function woff2Name(bytes: Buffer): Buffer | null {
  if (bytes.readUInt32BE(8) !== bytes.length) throw new Error('the WOFF2 header gives another length than the file has');
  if (bytes.toString('latin1', 4, 8) === 'ttcf') return null;
  const tables = bytes.readUInt16BE(12);
  const compressedSize = bytes.readUInt32BE(20);
  let at = 48;
  const base128 = () => {
    let value = 0;
    for (let i = 0; i < 5; i += 1) {
      const byte = bytes[at++];
      value = value * 128 + (byte & 0x7f);
      if ((byte & 0x80) === 0) return value;
    }
    throw new Error('the WOFF2 table directory is malformed');
  };
  const entries: { known: number; length: number }[] = [];
  for (let i = 0; i < tables; i += 1) {
    if (at >= bytes.length) throw new Error('the WOFF2 table directory is cut short');
    const flags = bytes[at++];
    const known = flags & 0x3f;
    if (known === 0x3f) at += 4;
    const original = base128();
    const transform = flags >> 6;
    // glyf and loca are transformed with version 0; every other table with a non-zero version.
    const transformed = known === 10 || known === 11 ? transform === 0 : transform !== 0;
    entries.push({ known, length: transformed ? base128() : original });
  }
  within(bytes, at, compressedSize);
  const data = brotliDecompressSync(bytes.subarray(at, at + compressedSize));
  let offset = 0;
  for (const entry of entries) {
    if (entry.known === WOFF2_NAME_TAG) return data.subarray(offset, offset + entry.length);
    offset += entry.length;
  }
  return null;
}

/** The typographic family (name ID 16), else the family (ID 1): Windows UTF-16 first, then Mac Roman. */
function familyOf(name: Buffer | null): string | null {
  if (!name || name.length < 6) return null;
  const count = name.readUInt16BE(2);
  const strings = name.readUInt16BE(4);
  const found = new Map<string, string>();
  for (let i = 0; i < count && 6 + i * 12 + 12 <= name.length; i += 1) {
    const record = 6 + i * 12;
    const [platform, , , id, length, offset] = [0, 2, 4, 6, 8, 10].map((field) => name.readUInt16BE(record + field));
    const start = strings + offset;
    if ((id !== 1 && id !== 16) || start + length > name.length) continue;
    const raw = name.subarray(start, start + length);
    const utf16 = (platform === 3 || platform === 0) && length % 2 === 0;
    const text = utf16 ? Buffer.from(raw).swap16().toString('utf16le') : raw.toString('latin1');
    if (!found.has(`${id}`)) found.set(`${id}`, text.trim());
  }
  return found.get('16') || found.get('1') || null;
}
