import { Test, TestingModule } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeyRepository } from '../src/api-keys/api-key.repository';
import { SignupCodeRepository } from '../src/auth/signup-code.repository';
import { IdempotencyRepository } from '../src/common/idempotency/idempotency.repository';
import { newId } from '../src/common/ids';
import { dataSourceOptions } from '../src/data-source-options';
import { TransactionRepository } from '../src/infra/database/transaction.repository';
import { JobStatus } from '../src/jobs/job.entity';
import { JobRepository, NewJob } from '../src/jobs/job.repository';
import { QuotaRepository } from '../src/jobs/quota.repository';
import { billingPeriod } from '../src/workspaces/usage-period';
import { WorkspaceRepository } from '../src/workspaces/workspace.repository';
import { createDatabase, dropDatabase } from './helpers/test-app';
import { insertWorkspace } from './helpers/workspaces';

/**
 * The middle tier for the SQL moved into repositories (issue 34): each repository against the real
 * PostgreSQL, without HTTP, on the rules its callers rely on.
 */
describe('repositories against the real database', () => {
  let databaseUrl: string;
  let moduleRef: TestingModule;
  let transactions: TransactionRepository;
  let workspaces: WorkspaceRepository;
  let keys: ApiKeyRepository;
  let codes: SignupCodeRepository;
  let quotas: QuotaRepository;
  let jobs: JobRepository;
  let idempotency: IdempotencyRepository;

  beforeAll(async () => {
    databaseUrl = await createDatabase();
    moduleRef = await Test.createTestingModule({
      imports: [TypeOrmModule.forRoot(dataSourceOptions(databaseUrl))],
      providers: [TransactionRepository, WorkspaceRepository, ApiKeyRepository, SignupCodeRepository, QuotaRepository, JobRepository, IdempotencyRepository],
    }).compile();
    transactions = moduleRef.get(TransactionRepository);
    workspaces = moduleRef.get(WorkspaceRepository);
    keys = moduleRef.get(ApiKeyRepository);
    codes = moduleRef.get(SignupCodeRepository);
    quotas = moduleRef.get(QuotaRepository);
    jobs = moduleRef.get(JobRepository);
    idempotency = moduleRef.get(IdempotencyRepository);
  }, 60_000);

  afterAll(async () => {
    await moduleRef?.close();
    if (databaseUrl) await dropDatabase(databaseUrl);
  });

  const newWorkspace = (fields: { email?: string | null; plan?: string } = {}) => insertWorkspace(moduleRef, { name: 'Repo test', ...fields });

  it('rolls a transaction back whole when its work throws', async () => {
    const id = newId('ws');
    await expect(
      transactions.run(async (tx) => {
        await workspaces.insert(tx, { id, name: 'Gone', email: null, emailVerifiedAt: null, plan: 'free' });
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await workspaces.findById(id)).toBeNull();
  });

  it('filters the admin list by part of the email, with % and _ as plain characters, and by plan and suspension', async () => {
    const plain = await newWorkspace({ email: 'ada@customer.com', plan: 'pro' });
    const percent = await newWorkspace({ email: 'fifty%off@customer.com' });
    await newWorkspace({ email: 'fiftyXoff@customer.com' });
    await workspaces.update(plain.id, { suspendedAt: new Date() });

    const ids = async (filter: Parameters<WorkspaceRepository['listForAdmin']>[0]) => (await workspaces.listForAdmin(filter, 50)).map((w) => w.id);
    expect(await ids({ email: '%OFF' })).toEqual([percent.id]);
    expect(await ids({ email: 'ADA@' })).toEqual([plain.id]);
    expect(await ids({ email: '@customer.com', suspended: true })).toEqual([plain.id]);
    expect(await ids({ email: '@customer.com', plan: 'pro' })).toEqual([plain.id]);
    expect((await workspaces.countByPlan()).get('pro')).toBe(1);
  });

  it('lets a pending signup key live only while its code is open, and activation revokes the other keys', async () => {
    const workspace = await newWorkspace({ email: 'keys@example.com' });
    const old = await keys.insert({ id: newId('key'), workspaceId: workspace.id, name: 'old', prefix: 'sk_old', keyHash: 'digest-old', pendingCodeId: null });
    const codeId = newId('otp');
    await transactions.run((tx) => codes.insert(tx, { id: codeId, workspaceId: workspace.id, codeHash: 'x', expiresAt: new Date(Date.now() + 60_000) }));
    await keys.insert({ id: newId('key'), workspaceId: workspace.id, name: 'pending', prefix: 'sk_new', keyHash: 'digest-new', pendingCodeId: codeId });

    const pending = await keys.findLiveByDigest('digest-new');
    expect(pending?.pendingCodeId).toBe(codeId);
    expect(pending?.keyHash).toBe('digest-new');
    expect(await transactions.run((tx) => keys.countWorking(tx, workspace.id))).toBe(1);

    await transactions.run((tx) => keys.activateAndRevokeOthers(tx, pending!));
    expect((await keys.findLiveByDigest('digest-new'))?.pendingCodeId).toBeNull();
    expect(await keys.findLiveByDigest('digest-old')).toBeNull();
    expect((await keys.findOwned(workspace.id, old.id))?.revokedAt).not.toBeNull();

    const laterCode = newId('otp');
    await transactions.run((tx) => codes.insert(tx, { id: laterCode, workspaceId: workspace.id, codeHash: 'y', expiresAt: new Date(Date.now() + 60_000) }));
    await keys.insert({ id: newId('key'), workspaceId: workspace.id, name: 'again', prefix: 'sk_again', keyHash: 'digest-again', pendingCodeId: laterCode });
    await transactions.run((tx) => codes.invalidateOpen(tx, workspace.id));
    expect(await keys.findLiveByDigest('digest-again')).toBeNull();
  });

  it("counts a month's render seconds: completed output plus unfinished holds, never previews", async () => {
    const workspace = await newWorkspace();
    const add = (status: JobStatus, fields: Partial<NewJob> = {}) =>
      transactions.run((tx) =>
        jobs.insert(tx, {
          id: newId('render'),
          workspaceId: workspace.id,
          kind: 'render',
          taskType: null,
          status,
          isPreview: false,
          request: {},
          metadata: {},
          webhookUrl: null,
          projectId: null,
          queueName: 'render',
          ...fields,
        }),
      );
    await add('completed', { outputSeconds: 30, reservedSeconds: 40, completedAt: new Date() });
    await add('queued', { reservedSeconds: 20 });
    const running = await add('processing', { reservedSeconds: 5 });
    await add('completed', { isPreview: true, outputSeconds: 100, completedAt: new Date() });
    await add('failed', { reservedSeconds: 70 });

    const period = billingPeriod();
    expect(await quotas.countedSeconds({ allowance: 'render', workspaceId: workspace.id, period })).toBe(55);
    expect(await quotas.countedSeconds({ allowance: 'render', workspaceId: workspace.id, period, exceptJobId: running.id })).toBe(50);
    expect(await quotas.countedSeconds({ allowance: 'render', workspaceId: workspace.id, period, startedOnly: true })).toBe(35);
    expect(await quotas.countedSeconds({ allowance: 'transcribe', workspaceId: workspace.id, period })).toBe(0);
  });

  it('claims an idempotency key once and hands back the stored answer', async () => {
    const workspace = await newWorkspace();
    const key = { workspaceId: workspace.id, scope: 'renders', key: 'abc-1' };
    expect(await transactions.run((tx) => idempotency.claim(tx, key, 'hash-1'))).toBe(true);
    expect(await transactions.run((tx) => idempotency.claim(tx, key, 'hash-2'))).toBe(false);
    await transactions.run((tx) => idempotency.storeResponse(tx, key, { id: 'render_1' }));
    expect(await transactions.run((tx) => idempotency.find(tx, key))).toEqual({ requestHash: 'hash-1', responseBody: { id: 'render_1' } });
    expect(await transactions.run((tx) => idempotency.find(tx, { ...key, key: 'unknown' }))).toBeNull();
  });
});
