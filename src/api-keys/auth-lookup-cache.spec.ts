import { AuthLookupCache } from './auth-lookup-cache';

describe('AuthLookupCache', () => {
  const clock = () => {
    let now = 1000;
    return { now: () => now, advance: (ms: number) => (now += ms) };
  };

  it('answers from the cache within the TTL and loads again after it', async () => {
    const time = clock();
    const cache = new AuthLookupCache<string>(2000, 10, time.now);
    const load = jest.fn(async () => 'workspace-a');
    expect(await cache.lookup('d1', load)).toBe('workspace-a');
    time.advance(1999);
    expect(await cache.lookup('d1', load)).toBe('workspace-a');
    expect(load).toHaveBeenCalledTimes(1);
    time.advance(1);
    expect(await cache.lookup('d1', load)).toBe('workspace-a');
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('keeps neither misses nor values the caller refuses', async () => {
    const cache = new AuthLookupCache<string>(2000, 10);
    const miss = jest.fn(async () => null);
    await cache.lookup('d1', miss);
    await cache.lookup('d1', miss);
    expect(miss).toHaveBeenCalledTimes(2);
    const pending = jest.fn(async () => 'pending');
    await cache.lookup('d2', pending, (v) => v !== 'pending');
    await cache.lookup('d2', pending, (v) => v !== 'pending');
    expect(pending).toHaveBeenCalledTimes(2);
    expect(cache.size).toBe(0);
  });

  it('forgets everything on invalidate, and does not keep a load that an invalidation overlapped', async () => {
    const cache = new AuthLookupCache<string>(2000, 10);
    await cache.lookup('d1', async () => 'before');
    cache.invalidate();
    expect(await cache.lookup('d1', async () => 'after')).toBe('after');

    let finish!: (v: string) => void;
    const racing = cache.lookup('d2', () => new Promise<string>((r) => (finish = r)));
    cache.invalidate(); // the row changed while it was being read
    finish('stale');
    expect(await racing).toBe('stale');
    expect(await cache.lookup('d2', async () => 'fresh')).toBe('fresh');
  });

  it('answers concurrent misses of one key with one load; after an invalidation a new one', async () => {
    const cache = new AuthLookupCache<string>(2000, 10);
    let finish!: (v: string) => void;
    const load = jest.fn(() => new Promise<string>((r) => (finish = r)));
    const early = [cache.lookup('d1', load), cache.lookup('d1', load), cache.lookup('d1', load)];
    expect(load).toHaveBeenCalledTimes(1);
    const first = finish;
    cache.invalidate();
    const late = cache.lookup('d1', load);
    expect(load).toHaveBeenCalledTimes(2);
    first('before');
    finish('after');
    expect(await Promise.all(early)).toEqual(['before', 'before', 'before']);
    expect(await late).toBe('after');
    expect(await cache.lookup('d1', load)).toBe('after');
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('holds at most maxEntries, dropping the oldest', async () => {
    const cache = new AuthLookupCache<string>(2000, 2);
    for (const d of ['a', 'b', 'c']) await cache.lookup(d, async () => d);
    expect(cache.size).toBe(2);
    const load = jest.fn(async () => 'a2');
    expect(await cache.lookup('a', load)).toBe('a2');
    expect(await cache.lookup('c', load)).toBe('c');
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('caches nothing with a TTL of 0', async () => {
    const cache = new AuthLookupCache<string>(0, 10);
    const load = jest.fn(async () => 'x');
    await cache.lookup('d', load);
    await cache.lookup('d', load);
    expect(load).toHaveBeenCalledTimes(2);
  });
});
