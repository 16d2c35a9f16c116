import { Global, Module } from '@nestjs/common';
import { QueueStatsRepository } from '../infra/queue/queue-stats.repository';
import { Metrics } from './metrics';
import { MetricsController } from './metrics.controller';

/** Global so that the job runner, the renderer and the webhook worker can count what they do. */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [Metrics, QueueStatsRepository],
  exports: [Metrics],
})
export class MetricsModule {}
