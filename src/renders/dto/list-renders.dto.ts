import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/pagination';
import { JOB_STATUSES, JobStatus } from '../../jobs/job.entity';

export class ListRendersDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: JOB_STATUSES })
  @IsOptional()
  @IsIn(JOB_STATUSES)
  status?: JobStatus;

  @ApiPropertyOptional({ description: 'Only renders of this project' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  project_id?: string;
}
