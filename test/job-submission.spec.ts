import { DataSource, EntityManager } from 'typeorm';
import { newId } from '../src/common/ids';
import { JobSubmissionService, JobWrite } from '../src/jobs/job-submission.service';
import { TRANSCRIBE_QUEUE } from '../src/tasks/transcribe/transcribe-queue';
import { Workspace } from '../src/workspaces/workspace.entity';
import { startTestApp, TestApp } from './helpers/test-app';
import { insertWorkspace } from './helpers/workspaces';

/**
 * The middle tier for the one job submission (issue 34): JobSubmissionService against the real
 * PostgreSQL and queue, without HTTP. An API-only app, so no worker takes the queued jobs.
 */
describe('JobSubmissionService against the real database', () => {
  let app: TestApp;
  let submission: JobSubmissionService;
  let db: DataSource;

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    submission = app.running.app.get(JobSubmissionService);
    db = app.running.app.get(DataSource);
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  });

  const newWorkspace = () => insertWorkspace(app.running.app, { name: 'Submission test' });

  function transcribeJob(workspace: Workspace, seconds: number): JobWrite {
    return {
      reserve: { allowance: 'transcribe', seconds },
      row: {
        id: newId('task'),
        workspaceId: workspace.id,
        kind: 'task',
        taskType: 'transcribe',
        status: 'queued',
        isPreview: false,
        request: { source_url: 'https://example.com/a.mp3' },
        metadata: { case: 'submission' },
        webhookUrl: null,
        projectId: null,
        queueName: TRANSCRIBE_QUEUE.name,
        reservedSeconds: seconds,
        runLimitSeconds: null,
      },
    };
  }

  const jobsOf = (workspace: Workspace) =>
    db.query<{ id: string; status: string; queue_entry_id: string | null; reserved_seconds: number }[]>(
      `SELECT id, status, queue_entry_id, reserved_seconds FROM jobs WHERE workspace_id = $1`,
      [workspace.id],
    );

  it('writes the row and its queue entry once per key, replays the answer, and refuses the key with another body', async () => {
    const workspace = await newWorkspace();
    let writes = 0;
    const write = (): JobWrite => {
      writes += 1;
      return transcribeJob(workspace, 60);
    };
    const key = { scope: 'tasks', key: 'submission-once', payload: { n: 1 } };

    const first = await submission.submit(workspace, key, write);
    expect(first.replayed).toBe(false);
    expect(first.body).toMatchObject({ status: 'queued', metadata: { case: 'submission' } });
    const again = await submission.submit(workspace, key, write);
    expect(again).toEqual({ replayed: true, body: first.body });
    expect(writes).toBe(1);

    const rows = await jobsOf(workspace);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: first.body.id, status: 'queued', reserved_seconds: 60 });
    expect(rows[0].queue_entry_id).toEqual(expect.any(String));

    await expect(submission.submit(workspace, { ...key, payload: { n: 2 } }, write)).rejects.toMatchObject({ status: 409, code: 'conflict' });
    expect(await jobsOf(workspace)).toHaveLength(1);
  });

  it('refuses a job over the allowance with a 402 that writes nothing and leaves the key unused', async () => {
    const workspace = await newWorkspace();
    const key = { scope: 'tasks', key: 'submission-quota', payload: { n: 1 } };
    await expect(submission.submit(workspace, key, () => transcribeJob(workspace, 1_000_000))).rejects.toMatchObject({ status: 402, code: 'quota_exceeded' });
    expect(await jobsOf(workspace)).toHaveLength(0);

    const fits = await submission.submit(workspace, key, () => transcribeJob(workspace, 30));
    expect(fits.replayed).toBe(false);
    expect(await jobsOf(workspace)).toHaveLength(1);
  });

  it('writes a row without a queue entry when the kind dispatches it itself, inside the caller transaction', async () => {
    const workspace = await newWorkspace();
    const dispatched: string[] = [];
    const outcome = await submission.idempotent(workspace, { scope: 'batches', key: undefined, payload: {} }, async (tx: EntityManager) => {
      const own = await submission.write(tx, workspace, { ...transcribeJob(workspace, 10), dispatch: async (_tx, job) => void dispatched.push(job.id) });
      const none = await submission.write(tx, workspace, { row: transcribeJob(workspace, 0).row, dispatch: 'none' });
      return [own.id, none.id];
    });
    expect(dispatched).toEqual([outcome.body[0]]);
    const rows = await jobsOf(workspace);
    expect(rows.map((row) => row.id).sort()).toEqual([...outcome.body].sort());
    expect(rows.every((row) => row.queue_entry_id === null)).toBe(true);
  });
});
