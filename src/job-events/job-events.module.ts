import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { JobEventsController } from './job-events.controller';
import { JobEventStreamService } from './job-event-stream.service';
import { JobWakeupsService } from './job-wakeups.service';

/** Live job events for API clients (served only where the REST API is). */
@Module({
  imports: [JobsModule],
  controllers: [JobEventsController],
  providers: [JobEventStreamService, JobWakeupsService],
})
export class JobEventsModule {}
