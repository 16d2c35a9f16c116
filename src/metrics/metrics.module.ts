import { Global, Module } from '@nestjs/common';
import { QueueStatsRepository } from '../infra/queue/queue-stats.repository';
import { MetricsService } from './metrics.service';
import { MetricsController } from './metrics.controller';

/** Global so that the job runner, the renderer and the webhook worker can count what they do. */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [MetricsService, QueueStatsRepository],
  exports: [MetricsService],
})
export class MetricsModule {}
