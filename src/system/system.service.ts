import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { QueueService } from '../infra/queue/queue.service';
import { Storage } from '../infra/storage/storage';
import { API_VERSION, readBuildInfo, SERVICE_VERSION } from './build-info';
import { buildCapabilities } from './capabilities';

type CheckState = 'ok' | 'unavailable';

@Injectable()
export class SystemService {
  private readonly buildInfo;
  private readonly catalog;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly queue: QueueService,
    private readonly storage: Storage,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.buildInfo = readBuildInfo(config.commit);
    this.catalog = buildCapabilities(SERVICE_VERSION);
  }

  version() {
    return { version: SERVICE_VERSION, api_version: API_VERSION, ...this.buildInfo };
  }

  capabilities() {
    return this.catalog;
  }

  async readiness(): Promise<{ status: CheckState; checks: Record<string, CheckState> }> {
    const [database, queue, storage] = await Promise.all([this.checkDatabase(), this.checkQueue(), this.checkStorage()]);
    const checks = { database, queue, storage };
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

  private async checkQueue(): Promise<CheckState> {
    return (await withTimeout(this.queue.check(), 3000).catch(() => false)) ? 'ok' : 'unavailable';
  }

  private async checkStorage(): Promise<CheckState> {
    return (await withTimeout(this.storage.check(), 3000).catch(() => false)) ? 'ok' : 'unavailable';
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);
}
