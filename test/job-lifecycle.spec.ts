import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Global, Module } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { loadConfig } from '../src/config/app-config';
import { ConfigModule } from '../src/config/config.module';
import { dataSourceOptions } from '../src/data-source-options';
import { defineQueue, jobPayload } from '../src/infra/queue/queue-definition';
import { QueueModule } from '../src/infra/queue/queue.module';
import { QueueService } from '../src/infra/queue/queue.service';
import { StorageModule } from '../src/infra/storage/storage.module';
import { DATABASE_URL, RUNTIME_ROLE } from '../src/infra/tokens';
import { EventPublisher, JobEventType } from '../src/jobs/event-publisher';
import { JobFailure } from '../src/jobs/job-failure';
import { Job } from '../src/jobs/job.entity';
import { JobRepository } from '../src/jobs/job.repository';
import { JobRunnerService, JobWork } from '../src/jobs/job-runner.service';
import { JobSchedulerService } from '../src/jobs/job-scheduler.service';
import { JobStoreService } from '../src/jobs/job-store.service';
import { JobsModule } from '../src/jobs/jobs.module';
import { PlansModule } from '../src/workspaces/plans.module';
import { Workspace } from '../src/workspaces/workspace.entity';
import { waitFor } from './helpers/media';
import { createDatabase, dropDatabase } from './helpers/test-app';

/**
 * The middle tier: the one job lifecycle (JobRunnerService, JobRepository, JobSchedulerService, pg-boss) against a
 * real database, without HTTP or a browser. A test work kind decides per job what each attempt does.
 */

/** Events the runner published, as the webhooks module would receive them. */
class RecordedEvents extends EventPublisher {
  readonly seen: { type: JobEventType; jobId: string; status: string }[] = [];
  async jobEvent(type: JobEventType, job: Job): Promise<void> {
    if (!type.endsWith('.progress')) this.seen.push({ type, jobId: job.id, status: job.status });
  }
  async assetReady(): Promise<void> {}
  async brandKitReady(): Promise<void> {}
}

type Attempt = (attempt: number, signal: AbortSignal) => Promise<object>;

const TEST_QUEUE = defineQueue('lifecycle-test', jobPayload);
const TEST_DEAD_LETTER_QUEUE = defineQueue('lifecycle-test-dead', jobPayload);

describe('job lifecycle against the real database', () => {
  let databaseUrl: string;
  let moduleRef: TestingModule;
  let jobs: JobRepository;
  let events: RecordedEvents;
  const plans = new Map<string, Attempt>();
  const attempts = new Map<string, number>();
  const discarded: string[] = [];
  const workspace = { id: 'ws_LIFECYCLE', plan: 'free' } as Workspace;

  const work: JobWork = {
    kind: 'task',
    queue: TEST_QUEUE,
    deadLetterQueue: TEST_DEAD_LETTER_QUEUE,
    label: 'Test job',
    retryLimit: 2,
    retryDelaySeconds: 1,
    run: async (job, signal) => {
      const attempt = (attempts.get(job.id) ?? 0) + 1;
      attempts.set(job.id, attempt);
      return { result: await plans.get(job.id)!(attempt, signal) };
    },
    discard: async (outcome) => {
      discarded.push(JSON.stringify(outcome.result));
    },
  };

  beforeAll(async () => {
    databaseUrl = await createDatabase();
    const config = loadConfig({ DATABASE_URL: databaseUrl, JOB_SUPERVISE_SECONDS: '1', DATA_DIR: mkdtempSync(path.join(tmpdir(), 'vrs-lifecycle-')) });
    events = new RecordedEvents();

    @Global()
    @Module({
      providers: [
        { provide: DATABASE_URL, useValue: databaseUrl },
        { provide: RUNTIME_ROLE, useValue: 'worker' },
        { provide: EventPublisher, useValue: events },
      ],
      exports: [DATABASE_URL, RUNTIME_ROLE, EventPublisher],
    })
    class TestRoot {}

    moduleRef = await Test.createTestingModule({
      imports: [TestRoot, ConfigModule.forRoot(config), TypeOrmModule.forRoot(dataSourceOptions(databaseUrl)), QueueModule, StorageModule, PlansModule, JobsModule],
    }).compile();
    await moduleRef.init();
    jobs = moduleRef.get(JobRepository);
    await moduleRef.get(DataSource).query(`INSERT INTO workspaces (id, name, plan) VALUES ($1, 'Lifecycle', 'free')`, [workspace.id]);
    const runner = moduleRef.get(JobRunnerService);
    await runner.ensureQueues(work);
    runner.startWorkers(work, 2);
  }, 60_000);

  afterAll(async () => {
    await moduleRef?.close();
    if (databaseUrl) await dropDatabase(databaseUrl);
  });

  let counter = 0;
  async function submit(plan: Attempt, status: 'queued' | 'processing' = 'queued', before?: (tx: EntityManager, id: string) => Promise<void>): Promise<string> {
    counter += 1;
    const id = `task_LIFECYCLE${String(counter).padStart(4, '0')}`;
    plans.set(id, plan);
    await moduleRef.get(DataSource).transaction(async (tx) => {
      const job = await jobs.insert(tx, {
        id,
        workspaceId: workspace.id,
        kind: 'task',
        taskType: 'test',
        status,
        isPreview: false,
        request: {},
        metadata: {},
        webhookUrl: null,
        projectId: null,
        queueName: TEST_QUEUE.name,
      });
      await before?.(tx, id);
      await moduleRef.get(JobSchedulerService).enqueue(tx, job, 'free');
    });
    return id;
  }

  const ended = async (id: string): Promise<Job> => {
    const job = (await waitFor(() => jobs.findById(id), (found) => found !== null && ['completed', 'failed', 'cancelled'].includes(found.status), 60_000, 50)) as Job;
    // The outcome event is published just after the row is written (JobRunnerService.publishOutcome).
    if (job.status !== 'cancelled') await waitFor(async () => events.seen.some((event) => event.jobId === id), (seen) => seen, 10_000, 20);
    return job;
  };

  it('retries an unexpected error and completes on a later attempt', async () => {
    const id = await submit(async (attempt) => {
      if (attempt < 3) throw new Error(`flaky ${attempt}`);
      return { attempt };
    });
    const job = await ended(id);
    expect(job).toMatchObject({ status: 'completed', attempts: 3, result: { attempt: 3 }, error: null });
    expect(events.seen.filter((e) => e.jobId === id)).toEqual([{ type: 'task.completed', jobId: id, status: 'completed' }]);
  });

  it('fails as internal once the retries are used up, and at once on a JobFailure', async () => {
    const flaky = await submit(async () => {
      throw new Error('always');
    });
    const doomed = await submit(async () => {
      throw new JobFailure('invalid_source', 'The source is not media');
    });
    expect(await ended(flaky)).toMatchObject({ status: 'failed', attempts: 3, error: { code: 'internal' } });
    expect(await ended(doomed)).toMatchObject({ status: 'failed', attempts: 1, error: { code: 'invalid_source', message: 'The source is not media' } });
    expect(attempts.get(doomed)).toBe(1);
    expect(events.seen.filter((e) => e.jobId === flaky || e.jobId === doomed).map((e) => e.type)).toEqual(['task.failed', 'task.failed']);
  });

  it('fails a job whose queue entry was dead-lettered (every attempt crashed the worker)', async () => {
    const id = `task_LIFECYCLEDEAD`;
    await moduleRef.get(DataSource).transaction(async (tx) => {
      await jobs.insert(tx, {
        id, workspaceId: workspace.id, kind: 'task', taskType: 'test', status: 'processing', isPreview: false,
        request: {}, metadata: {}, webhookUrl: null, projectId: null, queueName: TEST_QUEUE.name,
      });
      await moduleRef.get(QueueService).sendInTransaction(tx, TEST_DEAD_LETTER_QUEUE, { job_id: id });
    });
    expect(await ended(id)).toMatchObject({ status: 'failed', error: { code: 'internal', message: 'Test job failed after 3 attempts' } });
  });

  it('takes over a job left processing by a dead worker (its lease ran out) and finishes it', async () => {
    // The row says processing, as a worker killed mid-job leaves it; its queue entry is handed out again.
    // In the submit's transaction: a worker may take the entry the moment it commits.
    const id = await submit(async (attempt) => ({ attempt }), 'processing', async (tx, jobId) => {
      await tx.query(`UPDATE jobs SET attempts = 1, started_at = now() - interval '1 minute' WHERE id = $1`, [jobId]);
    });
    const job = await ended(id);
    expect(job).toMatchObject({ status: 'completed', attempts: 2 });
    expect(job.startedAt!.getTime()).toBeLessThan(Date.now() - 30_000);
  });

  it('a cancel that lands while the work finishes wins: the outcome is discarded and no completion is published', async () => {
    let release!: () => void;
    const finishing = new Promise<void>((resolve) => (release = resolve));
    let started = false;
    const id = await submit(async () => {
      started = true;
      await finishing;
      return { made: 'artifact' };
    });
    await waitFor(async () => started, (s) => s, 30_000, 20);
    const cancelled = await moduleRef.get(JobStoreService).cancel(workspace, 'task', id);
    expect(cancelled.status).toBe('cancelled');
    release();
    await waitFor(async () => discarded.length, (n) => n > 0, 30_000, 20);
    expect(discarded).toEqual([JSON.stringify({ made: 'artifact' })]);
    expect((await jobs.findById(id))!.status).toBe('cancelled');
    expect(events.seen.filter((e) => e.jobId === id)).toEqual([]);
  });

  it('refuses illegal transitions in SQL: a finished job is not claimed, completed, failed or cancelled again', async () => {
    const id = await submit(async () => ({ ok: true }));
    await ended(id);
    expect(await jobs.markProcessing(id)).toBeNull();
    expect(await jobs.complete(id, { result: { again: true } })).toBe(false);
    expect(await jobs.fail(id, { code: 'internal', message: 'late' })).toBe(false);
    expect(await moduleRef.get(DataSource).transaction((tx) => jobs.cancel(tx, id))).toBe(false);
    expect(await jobs.findById(id)).toMatchObject({ status: 'completed', result: { ok: true }, error: null });
  });
});
