import { QueryFailedError } from 'typeorm';
import { StorageFullError } from './storage-full';
import { StorageUnavailableError } from './storage-unavailable';
import { remainingMs } from '../../infra/queue/hand-back';
import { outageOf } from './outage';

describe('outages', () => {
  it('names a stalled or unreachable database as unavailable, through TypeORM\'s wrapper too', () => {
    const readTimeout = new QueryFailedError('SELECT 1', [], new Error('Query read timeout'));
    const states = ['57014', '57P01', '08006', '53300'].map((code) => Object.assign(new Error('server says no'), { code }));
    for (const error of [readTimeout, new Error('timeout exceeded when trying to connect'), new Error('Connection terminated unexpectedly'), Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), ...states]) {
      expect(outageOf(error)).toMatchObject({ code: 'unavailable', retryAfterSeconds: 5 });
    }
  });

  it('names a full disk storage_full, from Node\'s code or a child process\'s words', () => {
    for (const error of [new StorageFullError(), Object.assign(new Error('write failed'), { code: 'ENOSPC' }), new Error('ffmpeg: No space left on device'), new Error('wrapped', { cause: Object.assign(new Error('x'), { code: 'EDQUOT' }) })]) {
      expect(outageOf(error)).toMatchObject({ code: 'storage_full' });
    }
  });

  it('names a refusing or silent storage driver storage_unavailable, before the database words its cause carries', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9000'), { code: 'ECONNREFUSED' });
    const down = new StorageUnavailableError(false, 'S3 endpoint http://s3 cannot be reached (ECONNREFUSED): check S3_ENDPOINT and the network', { cause: refused });
    expect(outageOf(down)).toEqual({
      code: 'storage_unavailable',
      message: "The service's storage is not answering; the request was not completed. S3 endpoint http://s3 cannot be reached (ECONNREFUSED): check S3_ENDPOINT and the network",
      retryAfterSeconds: 10,
    });
    const misconfigured = new Error('upload failed', { cause: new StorageUnavailableError(true, 'S3 bucket "b" does not exist at http://s3: create it, or correct S3_BUCKET') });
    expect(outageOf(misconfigured)).toMatchObject({ code: 'storage_unavailable', message: expect.stringMatching(/^The service's storage is misconfigured;.*correct S3_BUCKET$/), retryAfterSeconds: 60 });
  });

  it('leaves other errors alone (a bug stays a 500)', () => {
    for (const error of [new Error('Cannot read properties of undefined'), new QueryFailedError('SELECT', [], Object.assign(new Error('duplicate key'), { code: '23505' })), null, 'text']) {
      expect(outageOf(error)).toBeNull();
    }
  });

  it('estimates a job\'s remaining time from its progress, and not before there is some', () => {
    expect(remainingMs(2000, 0)).toBeNull();
    expect(remainingMs(2000, 20)).toBe(8000);
    expect(remainingMs(2000, 100)).toBe(0);
  });
});
