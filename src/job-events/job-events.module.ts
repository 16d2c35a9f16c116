import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { JobEventsController } from './job-events.controller';
import { JobEventStream } from './job-event-stream';
import { JobWakeups } from './job-wakeups';

/** Live job events for API clients (served only where the REST API is). */
@Module({
  imports: [JobsModule],
  controllers: [JobEventsController],
  providers: [JobEventStream, JobWakeups],
})
export class JobEventsModule {}
