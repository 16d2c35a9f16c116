import { QueryFailedError } from 'typeorm';
import { StorageFullError } from './storage-full';
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
