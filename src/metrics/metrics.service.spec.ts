import { QueueStatsRepository } from '../infra/queue/queue-stats.repository';
import { MetricsService } from './metrics.service';

describe('MetricsService with the all role worker process beside it (record 0129)', () => {
  const queues = { waiting: async () => [{ name: 'render', depth: 3, oldest_seconds: 7 }] } as unknown as QueueStatsRepository;

  it('adds the worker process counters to its own, lists its process metrics apart, and reads the queue once', async () => {
    const api = new MetricsService(queues);
    const worker = new MetricsService(queues);
    api.jobFinished('render', 'completed', null);
    worker.jobFinished('render', 'completed', null);
    worker.jobFinished('render', 'failed', null);
    api.addWorkerProcess(() => worker.registry.getMetricsAsJSON());

    const text = await api.exposition();
    const lines = text.split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        'vrs_jobs_finished_total{kind="render",outcome="completed"} 2',
        'vrs_jobs_finished_total{kind="render",outcome="failed"} 1',
        'vrs_queue_depth{queue="render"} 3',
      ]),
    );
    expect(lines.filter((line) => line.startsWith('vrs_queue_depth{'))).toHaveLength(1);
    expect(lines.filter((line) => /^vrs_process_cpu_seconds_total(\{process="worker"\})? /.test(line))).toHaveLength(2);
    expect(lines.filter((line) => line.startsWith('# TYPE vrs_jobs_finished_total '))).toHaveLength(1);
  });

  it('answers its own metrics alone when the worker process is down', async () => {
    const api = new MetricsService(queues);
    api.jobFinished('render', 'completed', null);
    api.addWorkerProcess(async () => []);
    const lines = (await api.exposition()).split('\n');
    expect(lines).toContain('vrs_jobs_finished_total{kind="render",outcome="completed"} 1');
    expect(lines.some((line) => line.includes('process="worker"'))).toBe(false);
  });
});
