import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({ name: 'SkillSummary' })
export class SkillSummaryDto {
  @ApiProperty({ example: 'render-basics' })
  name: string;

  @ApiProperty()
  title: string;

  @ApiProperty()
  description: string;

  @ApiProperty({ example: '/v1/skills/render-basics' })
  path: string;
}

@ApiSchema({ name: 'SkillList' })
export class SkillListDto {
  @ApiProperty({ type: [SkillSummaryDto] })
  data: SkillSummaryDto[];
}
