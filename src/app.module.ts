import { DynamicModule, Module, Provider } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { AssetsModule } from './assets/assets.module';
import { EventPublisher } from './jobs/event-publisher';
import { JobEventsModule } from './job-events/job-events.module';
import { JobsModule } from './jobs/jobs.module';
import { WorkspaceJobsService } from './jobs/workspace-jobs.service';
import { PlaygroundModule } from './playground/playground.module';
import { PreviewsModule } from './previews/previews.module';
import { RendersModule } from './renders/renders.module';
import { ApiKeyGuard } from './auth/api-key.guard';
import { AuthModule } from './auth/auth.module';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { RateLimitGuard } from './common/rate-limit/rate-limit.guard';
import { RateLimitModule } from './common/rate-limit/rate-limit.module';
import { ApiValidationPipe } from './common/validation/validation.pipe';
import { AppConfig, Role } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { dataSourceOptions } from './data-source-options';
import { FetcherModule } from './infra/http/fetcher.module';
import { FontsApiModule, FontsModule } from './fonts/fonts.module';
import { MailModule } from './infra/mail/mail.module';
import { McpModule } from './mcp/mcp.module';
import { MetricsModule } from './metrics/metrics.module';
import { QueueModule } from './infra/queue/queue.module';
import { ReadinessModule } from './infra/readiness/readiness.module';
import { FilesModule, StorageModule } from './infra/storage/storage.module';
import { DATABASE_URL, RUNTIME_ROLE } from './infra/tokens';
import { SkillsModule } from './skills/skills.module';
import { ProjectsModule } from './projects/projects.module';
import { BrandKitsModule } from './brand-kits/brand-kits.module';
import { SystemModule } from './system/system.module';
import { TasksModule } from './tasks/tasks.module';
import { UploadsModule } from './uploads/uploads.module';
import { BatchEventPublisherService } from './batches/batch-event-publisher.service';
import { BatchesModule } from './batches/batches.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { WorkspacesModule } from './workspaces/workspaces.module';
import { PlansModule } from './workspaces/plans.module';
import { WorkspaceJobs } from './workspaces/workspace-jobs';
import { AdminModule } from './admin/admin.module';
import { RetentionModule } from './retention/retention.module';

export interface AppModuleOptions {
  config: AppConfig;
  role: Role;
  databaseUrl: string;
}

/**
 * One module tree for every role. `api` and `all` serve the whole REST API; `worker` serves only
 * the system routes (Cloud Run needs a listening port) and runs the queue handlers.
 */
@Module({})
export class AppModule {
  static forRoot({ config, role, databaseUrl }: AppModuleOptions): DynamicModule {
    const servesApi = role !== 'worker';
    const globals: Provider[] = [
      { provide: DATABASE_URL, useValue: databaseUrl },
      { provide: RUNTIME_ROLE, useValue: role },
      { provide: APP_FILTER, useClass: AllExceptionsFilter },
      { provide: APP_PIPE, useClass: ApiValidationPipe },
      // The jobs module's port, bound here to the webhooks module's adapter (through batches, which follow their rows' ends).
      { provide: EventPublisher, useExisting: BatchEventPublisherService },
      // The workspaces module's port, bound to the jobs module's adapter (a delete dequeues the workspace's jobs).
      { provide: WorkspaceJobs, useExisting: WorkspaceJobsService },
    ];
    if (servesApi) {
      // Order matters: rate limits count unauthenticated floods too, then the key is checked.
      globals.push({ provide: APP_GUARD, useClass: RateLimitGuard }, { provide: APP_GUARD, useClass: ApiKeyGuard });
    }
    return {
      module: AppModule,
      global: true,
      imports: [
        ConfigModule.forRoot(config),
        PlansModule,
        TypeOrmModule.forRoot(dataSourceOptions(databaseUrl, config.database)),
        QueueModule,
        MailModule,
        StorageModule,
        FetcherModule,
        FontsModule,
        RateLimitModule,
        ReadinessModule,
        MetricsModule,
        SystemModule,
        JobsModule,
        WebhooksModule.forRole(servesApi),
        AssetsModule.forRole(servesApi),
        RendersModule.forRole(servesApi),
        // Right after renders: the OpenAPI document lists /v1/preview where it always has.
        ...(servesApi ? [PreviewsModule] : []),
        TasksModule.forRole(servesApi),
        BatchesModule.forRole(servesApi),
        BrandKitsModule.forRole(servesApi),
        RetentionModule,
        ...(servesApi ? [FontsApiModule, ApiKeysModule, AuthModule, WorkspacesModule, SkillsModule, FilesModule, UploadsModule, ProjectsModule, JobEventsModule, McpModule, PlaygroundModule, AdminModule] : []),
      ],
      providers: globals,
      exports: [DATABASE_URL, RUNTIME_ROLE, EventPublisher, WorkspaceJobs],
    };
  }
}
