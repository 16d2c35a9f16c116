import { newId, randomBase62, ulid } from './ids';
import { decodeCursor, encodeCursor, toPage } from './pagination/pagination';

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
  it('round-trips a cursor and rejects a forged one', () => {
    const cursor = encodeCursor('key_01ABC');
    expect(decodeCursor(cursor, 'key')).toBe('key_01ABC');
    expect(decodeCursor(undefined, 'key')).toBeUndefined();
    expect(() => decodeCursor(encodeCursor('ws_01ABC'), 'key')).toThrow(/cursor/);
    expect(() => decodeCursor(encodeCursor("key_1' OR 1=1"), 'key')).toThrow(/cursor/);
  });

  it('builds pages from limit + 1 rows', () => {
    const rows = [{ id: 'key_3' }, { id: 'key_2' }, { id: 'key_1' }];
    expect(toPage(rows, 2, (r) => r.id)).toEqual({ data: ['key_3', 'key_2'], next_cursor: encodeCursor('key_2'), has_more: true });
    expect(toPage(rows, 3, (r) => r.id)).toEqual({ data: ['key_3', 'key_2', 'key_1'], next_cursor: null, has_more: false });
  });
});
