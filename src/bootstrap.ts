import { INestApplication, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { IncomingMessage, Server } from 'node:http';
import type { NestExpressApplication, NestExpressBodyParserOptionsFor } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import type * as express from 'express';
import type { NextFunction, Request, Response } from 'express';
import { AppModule } from './app.module';
import { AppConfig, Role } from './config/app-config';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { answerClientErrorsWithEnvelope } from './common/errors/client-error';
import { hostileInputGuard, verifyJsonBytes } from './common/validation/request-input';
import { EmbeddedDatabase, startEmbeddedPostgres } from './infra/database/embedded-postgres';
import { DatabaseHealthRepository } from './infra/database/database-health.repository';
import { JobChangeListener } from './jobs/job-change-listener.service';
import { runMigrationsOnce } from './infra/database/migrate';
import { QueueService } from './infra/queue/queue.service';
import { MetricsService } from './metrics/metrics.service';
import { isFilesRoute } from './infra/storage/files.controller';
import { isCsvBatchUpload } from './batches/batch-rows';
import { SERVICE_VERSION } from './common/build-info';
import { OpenApiDocumentService } from './system/openapi-document.service';
import { buildOpenApiDocument } from './common/openapi/openapi-document';
import { jsonLogger } from './common/logging/logger';
import { RequestLogMiddleware } from './common/logging/request-log.middleware';
import { HttpDrain } from './infra/http/http-drain';
import type { AuthenticatedRequest } from './common/auth/decorators';

export interface RunningApp {
  app: INestApplication;
  databaseUrl: string;
  close(): Promise<void>;
}

/**
 * Builds the application for a role: the database (embedded unless DATABASE_URL is set), the Nest
 * app with every global concern applied, and the OpenAPI document. main.ts and the tests share it.
 */
export async function createApp(config: AppConfig, role: Role): Promise<RunningApp> {
  const embedded = config.databaseUrl ? null : await startEmbeddedPostgres(config.dataDir, config.embeddedPostgresPort);
  const databaseUrl = config.databaseUrl ?? embedded!.url;
  try {
    return await buildApp(config, role, databaseUrl, embedded);
  } catch (error) {
    // A start that fails half-way leaves no server of ours running.
    await embedded?.stop().catch(() => undefined);
    throw error;
  }
}

async function buildApp(config: AppConfig, role: Role, databaseUrl: string, embedded: EmbeddedDatabase | null): Promise<RunningApp> {
  await runMigrationsOnce(databaseUrl);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot({ config, role, databaseUrl }), {
    bodyParser: false,
    logger: jsonLogger(config),
    abortOnError: false,
  });
  app.set('trust proxy', config.trustProxy);
  // First of all, so that every request in flight is known to a shutdown.
  const httpDrain = new HttpDrain();
  app.use(httpDrain.middleware);
  app.disable('x-powered-by');
  // Every answer is to be taken as the type it declares: an error echoing input is never sniffed as HTML.
  app.use((_req: Request, res: Response, next: NextFunction) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  });
  // First, so that requests the body checks below refuse are logged (and carry X-Request-Id) too.
  const requestLog = new RequestLogMiddleware();
  app.use((req: Request, res: Response, next: NextFunction) => requestLog.use(req as AuthenticatedRequest, res, next));
  app.use(app.get(MetricsService).httpMiddleware);
  // Uploads to signed /v1/files/ URLs stream to storage whatever their type; JSON there is a file.
  // Nest's types leave `verify` out because its rawBody option uses it; rawBody is off, so it passes through.
  app.useBodyParser('json', {
    limit: config.bodyLimit,
    type: (req: IncomingMessage) => !isFilesRoute(req) && Boolean((req as Request).is(['application/json', 'application/*+json'])),
    verify: verifyJsonBytes,
  } as NestExpressBodyParserOptionsFor<'json'>);
  // One check of every body, query and path for what no route may receive (NUL, lone surrogates, prototype keys).
  app.use(hostileInputGuard((req) => isFilesRoute(req) || isCsvBatchUpload(req)));
  answerClientErrorsWithEnvelope(app.getHttpServer());
  // No enableShutdownHooks: main.ts turns SIGINT/SIGTERM into close() below, which also stops the
  // embedded PostgreSQL after the last connection is closed.
  if (role !== 'worker') {
    // `/` is where a browser lands first: send it to the playground (API reference: /docs).
    (app.getHttpAdapter().getInstance() as express.Express).get('/', (_req: Request, res: Response) => res.redirect(302, '/playground'));
  }

  const document = buildOpenApiDocument(app);
  app.get(OpenApiDocumentService).set(document);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'v1/openapi.json', yamlDocumentUrl: 'v1/openapi.yaml' });

  // Anything no route took, and errors raised outside Nest's pipeline (body parser), get the envelope too.
  const filter = new AllExceptionsFilter();
  app.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    filter.catch(err, { switchToHttp: () => ({ getRequest: () => req, getResponse: () => res }) } as never);
  });

  // Every module declares its queues and registers its handlers while the app initialises; a
  // worker process missing a handler must not start.
  await app.init();
  app.get(QueueService).assertEveryQueueHandled();
  await app.get(DatabaseHealthRepository, { strict: false }).warmPool();
  // The job read cache serves only while its LISTEN connection is up: listening before the first
  // request keeps a just-started API's reads off the pool (record 0133).
  if (role !== 'worker') await app.get(JobChangeListener, { strict: false }).ready();

  return {
    app,
    databaseUrl,
    close: async () => {
      // Before any module starts shutting down: no new request or job; those in flight get the
      // grace period to finish, then jobs are handed back (QueueService.drain) and connections closed.
      const graceMs = config.shutdownGraceSeconds * 1000;
      const server = app.getHttpServer() as Server;
      await Promise.all([server.listening ? httpDrain.drain(server, graceMs) : undefined, app.get(QueueService).drain(graceMs)]);
      await app.close();
      await embedded?.stop();
    },
  };
}

export async function listen(running: RunningApp, config: AppConfig, role: Role): Promise<void> {
  await running.app.listen(config.port, config.host);
  const logger = new Logger('Main');
  logger.log(`Listening on ${config.host}:${config.port} as "${role}" (version ${SERVICE_VERSION})`);
  if (role !== 'worker') logger.log(`Playground: ${config.publicBaseUrl}/playground · API reference: ${config.publicBaseUrl}/docs`);
}
