import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ApiId, ApiTimestamp } from '../../common/openapi/fields';

@ApiSchema({ name: 'UploadSlot' })
export class UploadSlotDto {
  @ApiId('asset')
  asset_id: string;

  @ApiProperty({ description: 'PUT the bytes here, with the Content-Type given at reservation' })
  upload_url: string;

  @ApiProperty({ description: 'Use this as `source_url` in requests once uploaded' })
  source_url: string;

  @ApiTimestamp('When upload_url stops working')
  expires_at: string;
}
