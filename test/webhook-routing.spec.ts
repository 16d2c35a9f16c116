import { DataSource } from 'typeorm';
import { newId } from '../src/common/ids';
import { TransactionRepository } from '../src/infra/database/transaction.repository';
import type { Job } from '../src/jobs/job.entity';
import { WebhookEventPublisherService } from '../src/webhooks/webhook-event-publisher.service';
import type { SubscribableEvent } from '../src/webhooks/webhook-events';
import { WebhookRepository } from '../src/webhooks/webhook.repository';
import { Workspace } from '../src/workspaces/workspace.entity';
import { WorkspaceRepository } from '../src/workspaces/workspace.repository';
import { startTestApp, TestApp } from './helpers/test-app';

/**
 * The middle tier for webhook routing (issue 34): WebhookEventPublisherService against the real
 * PostgreSQL, without HTTP. What is checked is where events are routed (the delivery rows written),
 * not their sending: the URLs are a closed loopback port.
 */
describe('webhook routing against the real database', () => {
  let app: TestApp;
  let publisher: WebhookEventPublisherService;
  let db: DataSource;
  const HOOK = 'http://127.0.0.1:9';

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    publisher = app.running.app.get(WebhookEventPublisherService);
    db = app.running.app.get(DataSource);
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  });

  async function workspaceWith(hooks: { path: string; events: SubscribableEvent[]; enabled?: boolean }[]): Promise<{ workspace: Workspace; ids: Record<string, string> }> {
    const transactions = app.running.app.get(TransactionRepository);
    const workspaces = app.running.app.get(WorkspaceRepository);
    const webhooks = app.running.app.get(WebhookRepository);
    return transactions.run(async (tx) => {
      const workspace = await workspaces.insert(tx, { id: newId('ws'), name: 'Routing test', email: null, emailVerifiedAt: null, plan: 'free' });
      const ids: Record<string, string> = {};
      for (const hook of hooks) {
        const made = await webhooks.insert(tx, { id: newId('wh'), workspaceId: workspace.id, url: `${HOOK}/${hook.path}`, events: hook.events, enabled: hook.enabled ?? true });
        ids[hook.path] = made.id;
      }
      return { workspace, ids };
    });
  }

  /** Each event of the workspace of `type`, with the destinations its deliveries were written for. */
  const routed = async (workspaceId: string, type: string) =>
    (
      await db.query<{ event_id: string; job_id: string | null; destinations: { webhook_id: string | null; url: string }[] }[]>(
        `SELECT e.id AS event_id, e.job_id,
                COALESCE(json_agg(json_build_object('webhook_id', d.webhook_id, 'url', d.url) ORDER BY d.url) FILTER (WHERE d.id IS NOT NULL), '[]') AS destinations
           FROM events e LEFT JOIN webhook_deliveries d ON d.event_id = e.id
          WHERE e.workspace_id = $1 AND e.type = $2
          GROUP BY e.id, e.job_id, e.created_at ORDER BY e.created_at`,
        [workspaceId, type],
      )
    );

  it('sends a workspace event to its enabled subscribers only, never to another workspace', async () => {
    const { workspace, ids } = await workspaceWith([
      { path: 'assets-and-kits', events: ['asset.ready', 'brand_kit.ready'] },
      { path: 'assets-disabled', events: ['asset.ready'], enabled: false },
      { path: 'renders-only', events: ['render.completed'] },
    ]);
    const other = await workspaceWith([{ path: 'other-assets', events: ['asset.ready'] }]);

    await publisher.assetReady(workspace.id, { id: 'asset_1' }, null);
    await publisher.brandKitReady(workspace.id, { id: 'bk_1' });

    const assets = await routed(workspace.id, 'asset.ready');
    expect(assets).toHaveLength(1);
    expect(assets[0].destinations).toEqual([{ webhook_id: ids['assets-and-kits'], url: `${HOOK}/assets-and-kits` }]);
    const kits = await routed(workspace.id, 'brand_kit.ready');
    expect(kits.map((event) => event.destinations)).toEqual([[{ webhook_id: ids['assets-and-kits'], url: `${HOOK}/assets-and-kits` }]]);
    expect(await routed(other.workspace.id, 'asset.ready')).toEqual([]);
  }, 30_000);

  it("sends to a request's own webhook_url alone, overriding the workspace's subscribers", async () => {
    const { workspace } = await workspaceWith([{ path: 'batches', events: ['batch.completed'] }]);

    await publisher.batchCompleted(workspace.id, { id: 'batch_1' }, `${HOOK}/own`);

    const events = await routed(workspace.id, 'batch.completed');
    expect(events).toHaveLength(1);
    expect(events[0].destinations).toEqual([{ webhook_id: null, url: `${HOOK}/own` }]);
  }, 30_000);

  it('records nothing when nobody listens, and sends progress only to a job with its own webhook_url', async () => {
    const { workspace } = await workspaceWith([{ path: 'everything', events: ['render.completed', 'render.failed', 'asset.ready'] }]);

    await publisher.brandKitReady(workspace.id, { id: 'bk_unheard' });
    expect(await routed(workspace.id, 'brand_kit.ready')).toEqual([]);

    // A progress event of a job without a webhook_url reaches no subscriber, not even one of every render event.
    const job = { id: newId('render'), workspaceId: workspace.id, kind: 'render', webhookUrl: null, progressPercent: 50, progressStage: 'compositing' } as unknown as Job;
    await publisher.jobEvent('render.progress', job);
    expect(await routed(workspace.id, 'render.progress')).toEqual([]);
  }, 30_000);
});
