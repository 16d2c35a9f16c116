import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { DatabaseHealthRepository } from '../infra/database/database-health.repository';
import { QueueService } from '../infra/queue/queue.service';
import { Storage } from '../infra/storage/storage';
import { API_VERSION, readBuildInfo, SERVICE_VERSION } from '../common/build-info';
import { buildCapabilities } from './capabilities';
import { ReadinessRegistryService } from '../infra/readiness/readiness-registry.service';
import { diskSpaceProblem } from '../infra/storage/disk-space';

type CheckState = 'ok' | 'unavailable';

@Injectable()
export class SystemService {
  private readonly buildInfo;
  private readonly catalog;
  private readonly dataDir: string;
  private readonly minFreeBytes: number;

  constructor(
    private readonly database: DatabaseHealthRepository,
    private readonly queue: QueueService,
    private readonly storage: Storage,
    private readonly readinessChecks: ReadinessRegistryService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.buildInfo = readBuildInfo(config.commit);
    this.catalog = buildCapabilities(SERVICE_VERSION, config);
    this.dataDir = config.dataDir;
    this.minFreeBytes = config.storage.minFreeBytes;
  }

  version() {
    return { version: SERVICE_VERSION, api_version: API_VERSION, ...this.buildInfo };
  }

  capabilities() {
    return this.catalog;
  }

  async readiness(): Promise<{ status: CheckState; checks: Record<string, CheckState>; messages?: Record<string, string> }> {
    const extra = this.readinessChecks.entries();
    const [database, queue, storageProblem, ...others] = await Promise.all([
      this.checkDatabase(),
      this.checkQueue(),
      this.storageProblem(),
      ...extra.map(([, check]) => run(check)),
    ]);
    const storage: CheckState = storageProblem === null ? 'ok' : 'unavailable';
    const checks: Record<string, CheckState> = { database, queue, storage };
    extra.forEach(([name], index) => (checks[name] = others[index]));
    const status = Object.values(checks).every((c) => c === 'ok') ? 'ok' : 'unavailable';
    return storageProblem === null ? { status, checks } : { status, checks, messages: { storage: storageProblem } };
  }

  private async checkDatabase(): Promise<CheckState> {
    try {
      await withTimeout(this.database.ping(), 3000);
      return 'ok';
    } catch {
      return 'unavailable';
    }
  }

  private checkQueue(): Promise<CheckState> {
    return run(() => this.queue.check());
  }

  /** Null when storage is ready; else what is wrong in words (a bucket store names the bucket, the credentials or the endpoint). */
  private async storageProblem(): Promise<string | null> {
    const [store, disk] = await Promise.all([
      withTimeout(this.storage.problem(), 3000).catch((error: Error) =>
        error.message === 'timeout' ? `The ${this.storage.driver} storage did not answer within 3 s` : `The ${this.storage.driver} storage check failed: ${error.message}`,
      ),
      // Every driver renders into work folders under DATA_DIR; the local driver also keeps its objects there.
      withTimeout(diskSpaceProblem(this.dataDir, this.minFreeBytes), 3000).catch(() => null),
    ]);
    return store ?? disk;
  }
}

async function run(check: () => Promise<boolean>): Promise<CheckState> {
  return (await withTimeout(check(), 3000).catch(() => false)) ? 'ok' : 'unavailable';
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);
}
