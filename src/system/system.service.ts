import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { QueueService } from '../infra/queue/queue.service';
import { Storage } from '../infra/storage/storage';
import { API_VERSION, readBuildInfo, SERVICE_VERSION } from './build-info';
import { buildCapabilities } from './capabilities';
import { ReadinessRegistry } from './readiness.registry';

type CheckState = 'ok' | 'unavailable';

@Injectable()
export class SystemService {
  private readonly buildInfo;
  private readonly catalog;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly queue: QueueService,
    private readonly storage: Storage,
    private readonly readinessChecks: ReadinessRegistry,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.buildInfo = readBuildInfo(config.commit);
    this.catalog = buildCapabilities(SERVICE_VERSION, config);
  }

  version() {
    return { version: SERVICE_VERSION, api_version: API_VERSION, ...this.buildInfo };
  }

  capabilities() {
    return this.catalog;
  }

  async readiness(): Promise<{ status: CheckState; checks: Record<string, CheckState> }> {
    const extra = this.readinessChecks.entries();
    const [database, queue, storage, ...others] = await Promise.all([
      this.checkDatabase(),
      this.checkQueue(),
      this.checkStorage(),
      ...extra.map(([, check]) => run(check)),
    ]);
    const checks: Record<string, CheckState> = { database, queue, storage };
    extra.forEach(([name], index) => (checks[name] = others[index]));
    const status = Object.values(checks).every((c) => c === 'ok') ? 'ok' : 'unavailable';
    return { status, checks };
  }

  private async checkDatabase(): Promise<CheckState> {
    try {
      await withTimeout(this.db.query('SELECT 1'), 3000);
      return 'ok';
    } catch {
      return 'unavailable';
    }
  }

  private checkQueue(): Promise<CheckState> {
    return run(() => this.queue.check());
  }

  private checkStorage(): Promise<CheckState> {
    return run(() => this.storage.check());
  }
}

async function run(check: () => Promise<boolean>): Promise<CheckState> {
  return (await withTimeout(check(), 3000).catch(() => false)) ? 'ok' : 'unavailable';
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);
}
