import * as path from 'node:path';
import { Injectable } from '@nestjs/common';
import { contentTypeOfExtension } from '../infra/media/media-types';
import { Storage } from '../infra/storage/storage';
import { Job } from './job.entity';
import { JobView, toJobView } from './job.view';

/** Signed URLs in `output.url` live this long; each read of the job signs a fresh one. */
export const OUTPUT_URL_TTL_SECONDS = 24 * 3600;
/** `GET …/download` hands out a short-lived URL. */
export const DOWNLOAD_URL_TTL_SECONDS = 15 * 60;

/**
 * Turns a job row into the API's Job object. The artifact is stored under a private key; its
 * `output.url` is a signed URL made at read time, so rows never hold expiring links.
 */
@Injectable()
export class JobPresenterService {
  constructor(private readonly storage: Storage) {}

  async present(job: Job): Promise<JobView> {
    const view = toJobView(job);
    if (job.output && job.outputKey) {
      const contentType = contentTypeOfExtension(path.extname(job.outputKey));
      const { url } = await this.storage.signedReadUrl(job.outputKey, OUTPUT_URL_TTL_SECONDS, { contentType });
      view.output = { ...job.output, url };
    }
    return view;
  }

  async downloadUrl(job: Job): Promise<{ url: string; expires_at: string }> {
    return this.storage.signedReadUrl(job.outputKey!, DOWNLOAD_URL_TTL_SECONDS, { downloadFilename: artifactFilename(job) });
  }
}

export function artifactFilename(job: Job): string {
  const requested = typeof job.request.output_filename === 'string' ? job.request.output_filename : null;
  const extension = job.outputKey?.split('.').pop() ?? 'bin';
  return `${requested ?? job.id}.${extension}`;
}
