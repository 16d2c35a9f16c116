import { JobReadCache } from './job-read-cache';
import type { JobView } from './job.view';

describe('JobReadCache', () => {
  const view = (id: string, status = 'queued') => ({ id, status, metadata: { n: 1 } }) as unknown as JobView;
  const clock = () => {
    let now = 1000;
    return { now: () => now, advance: (ms: number) => (now += ms) };
  };
  const listening = (cache: JobReadCache) => {
    cache.setListening(true);
    return cache;
  };

  it('answers only its own workspace and kind, with a copy each time', () => {
    const cache = listening(new JobReadCache());
    cache.store(cache.begin(), 'ws_a', 'render', 'job_1', view('job_1'));
    const first = cache.get('ws_a', 'render', 'job_1')!;
    expect(first).toEqual(view('job_1'));
    (first.metadata as Record<string, unknown>).n = 2;
    expect(cache.get('ws_a', 'render', 'job_1')).toEqual(view('job_1'));
    expect(cache.get('ws_b', 'render', 'job_1')).toBeNull();
    expect(cache.get('ws_a', 'task', 'job_1')).toBeNull();
  });

  it('drops an entry older than its age limit', () => {
    const time = clock();
    const cache = listening(new JobReadCache(30_000, 10, time.now));
    cache.store(cache.begin(), 'ws', 'render', 'job_1', view('job_1'));
    time.advance(30_000);
    expect(cache.get('ws', 'render', 'job_1')).not.toBeNull();
    time.advance(1);
    expect(cache.get('ws', 'render', 'job_1')).toBeNull();
    expect(cache.size).toBe(0);
  });

  it('holds at most its limit, dropping the oldest', () => {
    const cache = listening(new JobReadCache(30_000, 2));
    for (const id of ['a', 'b', 'c']) cache.store(cache.begin(), 'ws', 'render', id, view(id));
    expect(cache.size).toBe(2);
    expect(cache.get('ws', 'render', 'a')).toBeNull();
    expect(cache.get('ws', 'render', 'c')).not.toBeNull();
  });

  it('keeps nothing read across a change, during an open write, or while not listening', () => {
    const cache = new JobReadCache();
    cache.store(cache.begin(), 'ws', 'render', 'a', view('a'));
    expect(cache.get('ws', 'render', 'a')).toBeNull();
    cache.setListening(true);

    const overlapped = cache.begin();
    cache.invalidate('other');
    cache.store(overlapped, 'ws', 'render', 'a', view('a'));
    expect(cache.size).toBe(0);

    cache.writeOpened();
    cache.store(cache.begin(), 'ws', 'render', 'a', view('a'));
    expect(cache.size).toBe(0);
    cache.writeClosed();
    cache.store(cache.begin(), 'ws', 'render', 'a', view('a'));
    expect(cache.size).toBe(1);

    cache.invalidate('a');
    expect(cache.get('ws', 'render', 'a')).toBeNull();
    cache.store(cache.begin(), 'ws', 'render', 'a', view('a'));
    cache.setListening(false);
    expect(cache.size).toBe(0);
    expect(cache.get('ws', 'render', 'a')).toBeNull();
  });
});
