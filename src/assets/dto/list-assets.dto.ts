import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/pagination';
import type { AssetKind } from '../asset.entity';

export const ASSET_KINDS: AssetKind[] = ['video', 'audio', 'image', 'font'];

export class ListAssetsDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ASSET_KINDS })
  @IsOptional()
  @IsIn(ASSET_KINDS)
  kind?: AssetKind;
}
