import { Injectable } from '@nestjs/common';

export type UploadListener = (key: string) => Promise<void>;

/**
 * Local storage's signal that a signed PUT upload has been stored: the files route tells the
 * listeners (assets start probing). GCS uploads go straight to Google and raise nothing here.
 */
@Injectable()
export class UploadEventsService {
  private readonly listeners: UploadListener[] = [];

  onUploaded(listener: UploadListener): void {
    this.listeners.push(listener);
  }

  async uploaded(key: string): Promise<void> {
    for (const listener of this.listeners) await listener(key);
  }
}
