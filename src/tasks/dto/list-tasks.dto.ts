import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/pagination';
import { JobStatus } from '../../jobs/job.entity';
import { JOB_STATUSES } from '../../jobs/job.entity';
import { TASK_TYPES, TaskType } from '../task-types';

export class ListTasksDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: TASK_TYPES })
  @IsOptional()
  @IsIn(TASK_TYPES)
  task_type?: TaskType;

  @ApiPropertyOptional({ enum: JOB_STATUSES })
  @IsOptional()
  @IsIn(JOB_STATUSES)
  status?: JobStatus;
}
