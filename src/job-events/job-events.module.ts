import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { JobEventsController } from './job-events.controller';
import { JobEventStream } from './job-event-stream';

/** Live job events for API clients (served only where the REST API is). */
@Module({
  imports: [JobsModule],
  controllers: [JobEventsController],
  providers: [JobEventStream],
})
export class JobEventsModule {}
