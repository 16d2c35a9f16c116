import { newId, randomBase62, ulid } from './ids';
import { CURSOR_PATTERN, decodeCursor, encodeCursor, toPage } from './pagination/pagination';

describe('ids', () => {
  it('are prefixed, 26-character ULIDs that sort by creation time', () => {
    const earlier = ulid(1_700_000_000_000);
    const later = ulid(1_700_000_000_001);
    expect(earlier).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(earlier < later).toBe(true);
    expect(newId('ws')).toMatch(/^ws_[0-9A-Z]{26}$/);
    expect(new Set(Array.from({ length: 1000 }, () => newId('key'))).size).toBe(1000);
  });

  it('keep creation order within one millisecond', () => {
    const ids = Array.from({ length: 1000 }, () => newId('asset'));
    expect([...ids].sort()).toEqual(ids);
  });

  it('makes base62 secrets of the asked length', () => {
    const value = randomBase62(43);
    expect(value).toMatch(/^[0-9A-Za-z]{43}$/);
  });
});

describe('cursor pagination', () => {
  it('round-trips a cursor as 22 base64url characters and rejects one that is not', () => {
    const id = newId('key');
    const cursor = encodeCursor(id);
    expect(cursor).toMatch(CURSOR_PATTERN);
    expect(decodeCursor(cursor, 'key')).toBe(id);
    expect(decodeCursor(undefined, 'key')).toBeUndefined();
    expect(() => decodeCursor("key_1' OR 1=1", 'key')).toThrow(/cursor/);
    expect(() => decodeCursor(cursor.slice(1), 'key')).toThrow(/cursor/);
  });

  it('takes every string of the documented pattern as a bound, in id order', () => {
    // The last character holds 2 bits; the pattern admits exactly the 4 that decode to 16 bytes.
    for (const cursor of ['AAAAAAAAAAAAAAAAAAAAAA', '_____________________w', 'Zm9vYmFyYmF6cXV4LTEyMw']) {
      const id = decodeCursor(cursor, 'asset')!;
      expect(id).toMatch(/^asset_[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
      expect(encodeCursor(id)).toBe(cursor);
    }
    const [older, newer] = [newId('render'), newId('render')];
    expect(decodeCursor(encodeCursor(older), 'render')! < decodeCursor(encodeCursor(newer), 'render')!).toBe(true);
  });

  it('builds pages from limit + 1 rows', () => {
    const [k1, k2, k3] = [newId('key'), newId('key'), newId('key')];
    const rows = [{ id: k3 }, { id: k2 }, { id: k1 }];
    expect(toPage(rows, 2, (r) => r.id)).toEqual({ data: [k3, k2], next_cursor: encodeCursor(k2), has_more: true });
    expect(toPage(rows, 3, (r) => r.id)).toEqual({ data: [k3, k2, k1], next_cursor: null, has_more: false });
  });
});
