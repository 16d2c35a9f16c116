import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({ name: 'UploadSlot' })
export class UploadSlotDto {
  @ApiProperty({ example: 'asset_01JD8Z3N5Q7W9X2Y4A6B8C0D1E' })
  asset_id: string;

  @ApiProperty({ description: 'PUT the bytes here, with the Content-Type given at reservation' })
  upload_url: string;

  @ApiProperty({ description: 'Use this as `source_url` in requests once uploaded' })
  source_url: string;

  @ApiProperty({ format: 'date-time', description: 'When upload_url stops working' })
  expires_at: string;
}
