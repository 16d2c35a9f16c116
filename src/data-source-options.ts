import type { DataSourceOptions } from 'typeorm';
import { ApiKey } from './api-keys/api-key.entity';
import { SignupCode } from './auth/signup-code.entity';
import { Workspace } from './workspaces/workspace.entity';
import { Job } from './jobs/job.entity';
import { Foundation1763769600000 } from './migrations/1763769600000-Foundation';
import { Jobs1763773200000 } from './migrations/1763773200000-Jobs';
import { Media1763776800000 } from './migrations/1763776800000-Media';
import { Asset } from './assets/asset.entity';
import { Webhooks1763780400000 } from './migrations/1763780400000-Webhooks';
import { PendingSignupKeys1763784000000 } from './migrations/1763784000000-PendingSignupKeys';
import { JobCosts1763787600000 } from './migrations/1763787600000-JobCosts';
import { Previews1763791200000 } from './migrations/1763791200000-Previews';
import { SigningSecret } from './webhooks/signing-secret.entity';
import { WebhookDelivery } from './webhooks/webhook-delivery.entity';
import { WebhookEvent } from './webhooks/webhook-event.entity';
import { Webhook } from './webhooks/webhook.entity';
import { ProjectsAndBrandKits1763794800000 } from './migrations/1763794800000-ProjectsAndBrandKits';
import { JobDiagnostics1763805600000 } from './migrations/1763805600000-JobDiagnostics';
import { RenderChunks1763816400000 } from './migrations/1763816400000-RenderChunks';
import { Operators1764230400000 } from './migrations/1764230400000-Operators';
import { BatchRowReuse1764252000000 } from './migrations/1764252000000-BatchRowReuse';
import { Workers1764316800000 } from './migrations/1764316800000-Workers';
import { FontCache1764320400000 } from './migrations/1764320400000-FontCache';
import { AssetErrorCode1764324000000 } from './migrations/1764324000000-AssetErrorCode';
import { FontAssets1764327600000 } from './migrations/1764327600000-FontAssets';
import { JobChangedNotify1764336600000 } from './migrations/1764336600000-JobChangedNotify';
import { Project } from './projects/project.entity';
import { TranscriptCache1763798400000 } from './migrations/1763798400000-TranscriptCache';
import { BrandKit } from './brand-kits/brand-kit.entity';
import { Batch } from './batches/batch.entity';
import { Batches1763834400000 } from './migrations/1763834400000-Batches';

/** Entities and migrations are listed here once; the app and the TypeORM CLI (ormconfig.ts) share it. */
export const ENTITIES = [Workspace, ApiKey, SignupCode, Job, Asset, Webhook, WebhookEvent, WebhookDelivery, SigningSecret, Project, BrandKit, Batch];
export const MIGRATIONS = [
  Foundation1763769600000, Jobs1763773200000, Media1763776800000, Webhooks1763780400000, PendingSignupKeys1763784000000, JobCosts1763787600000,
  Previews1763791200000, ProjectsAndBrandKits1763794800000, TranscriptCache1763798400000,
  JobDiagnostics1763805600000, RenderChunks1763816400000, Batches1763834400000, Operators1764230400000, BatchRowReuse1764252000000,
  Workers1764316800000, FontCache1764320400000, AssetErrorCode1764324000000, FontAssets1764327600000, JobChangedNotify1764336600000,
];

/** node-postgres pool settings that bound a stalled database (see DatabaseTimeouts); the CLI runs without them. */
export function poolTimeouts(timeouts: { connectTimeoutMs: number; queryTimeoutMs: number }) {
  return {
    connectionTimeoutMillis: timeouts.connectTimeoutMs,
    // The server cancels a slow statement; the client gives up on a server that answers nothing at all.
    statement_timeout: timeouts.queryTimeoutMs,
    query_timeout: timeouts.queryTimeoutMs + 1000,
  };
}

export function dataSourceOptions(url: string, timeouts?: { connectTimeoutMs: number; queryTimeoutMs: number }): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    // The app migrates before it builds, under a lock (src/infra/database/migrate.ts).
    migrationsRun: false,
    synchronize: false,
    // `min` connections are opened at start (warmPool) and kept while idle, so a burst after start or
    // a quiet spell does not wait for new backends; the rest open on demand and close when idle.
    extra: { min: 4, max: 10, ...(timeouts ? poolTimeouts(timeouts) : {}) },
  };
}
