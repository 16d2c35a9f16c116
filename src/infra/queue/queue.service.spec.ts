import { z } from 'zod';
import { defineQueue } from './queue-definition';
import { QueueService } from './queue.service';

/** The registry rules, without a database: declaring is stubbed, everything else is the real service. */
const started: Record<string, (jobs: object[]) => Promise<void>> = {};

const handedBack: unknown[][] = [];

function service(role: 'api' | 'worker') {
  const queues = new QueueService('postgres://unused', role, {} as never);
  (queues as unknown as { boss: object }).boss = {
    offWork: async () => undefined,
    notifyWorker: () => undefined,
    getDb: () => ({ executeSql: async (_sql: string, values: unknown[]) => handedBack.push(values) }),
    getQueue: async () => null,
    createQueue: async () => undefined,
    work: async (name: string, _options: object, handler: (jobs: object[]) => Promise<void>) => {
      started[name] = handler;
      return 'worker-id';
    },
    getWipData: () => [],
  };
  return queues;
}

describe('the queue registry', () => {
  const jobs = defineQueue('jobs', z.strictObject({ job_id: z.string() }));
  const other = defineQueue('other', z.strictObject({ n: z.number() }));

  it('refuses to start a worker process with a declared queue that has no handler', async () => {
    const queues = service('worker');
    await queues.declare(jobs, {});
    await queues.declare(other, {});
    queues.registerWorker(jobs, async () => undefined);
    expect(() => queues.assertEveryQueueHandled()).toThrow('No handler for queue "other"');
    queues.registerWorker(other, async () => undefined);
    expect(() => queues.assertEveryQueueHandled()).not.toThrow();
  });

  it('refuses a second handler, and a second definition under one name', async () => {
    const queues = service('worker');
    await queues.declare(jobs, {});
    queues.registerWorker(jobs, async () => undefined);
    expect(() => queues.registerWorker(jobs, async () => undefined)).toThrow('Queue "jobs" has two handlers');
    await expect(queues.declare(defineQueue('jobs', z.strictObject({})), {})).rejects.toThrow('Queue "jobs" is defined twice');
  });

  it('an API process runs no handlers, so it does not need them', async () => {
    const queues = service('api');
    await queues.declare(jobs, {});
    expect(() => queues.assertEveryQueueHandled()).not.toThrow();
  });

  it('hands a handler only entries whose payload matches the queue\'s schema', async () => {
    const queues = service('worker');
    await queues.declare(jobs, {});
    const received: unknown[] = [];
    queues.registerWorker(jobs, async (batch) => {
      received.push(...batch.map((job) => job.data));
    });
    await started.jobs([
      { id: 'a', data: { job_id: 'render_1' } },
      { id: 'b', data: { job_id: 7 } },
      { id: 'c', data: { job_id: 'render_2', extra: true } },
    ]);
    expect(received).toEqual([{ job_id: 'render_1' }]);
  });

  it('refuses to send a payload its queue does not accept', async () => {
    const queues = service('api');
    const tx = { query: async () => [] } as never;
    await expect(queues.sendInTransaction(tx, other, { n: 'x' } as never)).rejects.toThrow();
  });

  it('at a shutdown lets an entry that can finish in the grace period finish, and hands back at once one that cannot', async () => {
    const queues = service('worker');
    await queues.declare(jobs, { retryLimit: 2 });
    const outcomes: Record<string, string> = {};
    queues.registerWorker(jobs, async ([job]) => {
      const needs = job.data.job_id === 'quick' ? 100 : 60_000;
      queues.estimateRemaining(job.id, () => needs);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, needs);
        job.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(job.signal.reason);
        });
      });
      outcomes[job.data.job_id] = 'finished';
    });
    const quick = started.jobs([{ id: 'q', data: { job_id: 'quick' }, retryCount: 0, retryLimit: 2 }]);
    const slow = started.jobs([{ id: 's', data: { job_id: 'slow' }, retryCount: 1, retryLimit: 3 }]);
    handedBack.length = 0;
    await queues.drain(5_000);
    await Promise.all([quick, slow]);
    expect(outcomes).toEqual({ quick: 'finished' });
    // The slow one is back in the queue, fenced to its claim (retry count 1), and no error reached pg-boss.
    expect(handedBack).toEqual([['jobs', 's', 1]]);
  });
});
