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
  /** Reads `id` through the cache, its load answering at once. */
  const reader = (cache: JobReadCache) => ({ read: (id: string, workspace = 'ws') => cache.read(workspace, 'render', id, async () => view(id)) });
  /** A load that answers when told to. */
  const deferred = () => {
    let answer!: (value: JobView) => void;
    const promise = new Promise<JobView>((resolve) => (answer = resolve));
    return { load: () => promise, answer };
  };

  it('answers only its own workspace and kind, with a copy each time', async () => {
    const cache = listening(new JobReadCache());
    await reader(cache).read('job_1', 'ws_a');
    const first = cache.get('ws_a', 'render', 'job_1')!;
    expect(first).toEqual(view('job_1'));
    (first.metadata as Record<string, unknown>).n = 2;
    expect(cache.get('ws_a', 'render', 'job_1')).toEqual(view('job_1'));
    expect(cache.get('ws_b', 'render', 'job_1')).toBeNull();
    expect(cache.get('ws_a', 'task', 'job_1')).toBeNull();
  });

  it('drops an entry older than its age limit', async () => {
    const time = clock();
    const cache = listening(new JobReadCache(30_000, 10, time.now));
    await reader(cache).read('job_1');
    time.advance(30_000);
    expect(cache.get('ws', 'render', 'job_1')).not.toBeNull();
    time.advance(1);
    expect(cache.get('ws', 'render', 'job_1')).toBeNull();
    expect(cache.size).toBe(0);
  });

  it('holds at most its limit, dropping the oldest', async () => {
    const cache = listening(new JobReadCache(30_000, 2));
    const { read } = reader(cache);
    for (const id of ['a', 'b', 'c']) await read(id);
    expect(cache.size).toBe(2);
    expect(cache.get('ws', 'render', 'a')).toBeNull();
    expect(cache.get('ws', 'render', 'c')).not.toBeNull();
  });

  it('keeps nothing read across a change of its job or of all jobs, during an open write, or while not listening', async () => {
    const cache = new JobReadCache();
    const { read } = reader(cache);
    await read('a');
    expect(cache.get('ws', 'render', 'a')).toBeNull();
    cache.setListening(true);

    // Another job's change does not spoil a read in flight; its own job's, or all jobs', does.
    const keptAcross = async (change: () => void) => {
      cache.invalidate('a');
      const pending = deferred();
      const reading = cache.read('ws', 'render', 'a', pending.load);
      change();
      pending.answer(view('a'));
      await reading;
      return cache.get('ws', 'render', 'a') !== null;
    };
    expect(await keptAcross(() => cache.invalidate('other'))).toBe(true);
    expect(await keptAcross(() => cache.invalidate('a'))).toBe(false);
    expect(await keptAcross(() => cache.clear())).toBe(false);

    cache.writeOpened();
    await read('a');
    expect(cache.size).toBe(0);
    cache.writeClosed();
    await read('a');
    expect(cache.size).toBe(1);

    cache.invalidate('a');
    expect(cache.get('ws', 'render', 'a')).toBeNull();
    await read('a');
    cache.setListening(false);
    expect(cache.size).toBe(0);
    expect(cache.get('ws', 'render', 'a')).toBeNull();
  });

  it('answers concurrent misses of one job with one read, each a copy; a change starts a fresh read; another workspace never joins', async () => {
    const cache = listening(new JobReadCache());
    const first = deferred();
    const loads: string[] = [];
    const load = (name: string, value: () => Promise<JobView>) => () => {
      loads.push(name);
      return value();
    };
    const early = [cache.read('ws', 'render', 'a', load('first', first.load)), cache.read('ws', 'render', 'a', load('joined', first.load))];
    // A write of this process: readers after it must not get the answer read before it.
    cache.invalidate('a');
    const afterChange = cache.read('ws', 'render', 'a', load('after change', async () => view('a', 'cancelled')));
    const stranger = cache.read('ws_other', 'render', 'a', load('stranger', () => Promise.reject(new Error('not found'))));
    first.answer(view('a'));
    const answers = await Promise.all(early);
    expect(loads).toEqual(['first', 'after change', 'stranger']);
    expect(answers.map((answer) => answer.status)).toEqual(['queued', 'queued']);
    expect(answers[0]).not.toBe(answers[1]);
    expect((await afterChange).status).toBe('cancelled');
    await expect(stranger).rejects.toThrow('not found');
    expect(cache.get('ws', 'render', 'a')?.status).toBe('cancelled');
  });
});
