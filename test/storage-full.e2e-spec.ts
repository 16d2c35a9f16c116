import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { waitFor } from './helpers/media';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

const MIB = 1024 * 1024;
const FLOOR = 4 * MIB;

/**
 * A full disk is named: DATA_DIR on a small tmpfs, filled up. `/v1/ready` reports storage below
 * STORAGE_MIN_FREE_BYTES, an upload that does not fit is 503 `storage_full` (not the client's
 * 422), and a render that cannot write fails at once with `storage_full` instead of three attempts.
 */
describe('a full disk', () => {
  let dataDir: string;
  let app: TestApp;
  let filler: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'vrs-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', dataDir]);
    filler = path.join(dataDir, 'filler');
    app = await startTestApp({ dataDir, env: { STORAGE_MIN_FREE_BYTES: String(FLOOR), RENDER_CONCURRENCY: '1' } });
  });
  afterAll(async () => {
    await app?.close();
    execFileSync('umount', [dataDir]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const free = () => {
    const stats = statfsSync(dataDir);
    return stats.bavail * stats.bsize;
  };

  /** Appends to the filler until only `leave` bytes are free (0: until the disk refuses). */
  function fill(leave: number): void {
    const fd = openSync(filler, 'a');
    try {
      const block = Buffer.alloc(256 * 1024, 7);
      while (free() > leave) writeSync(fd, block, 0, Math.min(block.length, Math.max(4096, free() - leave)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    } finally {
      closeSync(fd);
    }
  }

  it('is reported by /v1/ready below the floor, refuses an upload with 503 storage_full, and fails a render at once with storage_full', async () => {
    // Ready once the browser has warmed up.
    await waitFor(async () => (await app.http.get('/v1/ready')).status, (status) => status === 200, 120_000, 250);
    const { key } = await signupVerified(app);

    fill(1 * MIB);
    const ready = await app.http.get('/v1/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.storage).toBe('unavailable');
    expect(ready.body.messages.storage).toContain('STORAGE_MIN_FREE_BYTES');

    // 3 MiB into the 1 MiB left.
    const slot = await app.http.post('/v1/uploads').set(bearer(key)).send({ content_type: 'image/png' });
    expect(slot.status).toBe(201);
    const put = await fetch(slot.body.upload_url, { method: 'PUT', headers: { 'Content-Type': 'image/png' }, body: Buffer.alloc(3 * MIB, 1) });
    expect(put.status).toBe(503);
    expect(put.headers.get('retry-after')).not.toBeNull();
    const body = await put.json();
    expect(body.error).toMatchObject({ code: 'storage_full', message: expect.stringContaining('storage is full') });
    // Nothing half-written is left behind.
    expect(readdirSync(path.join(dataDir, 'storage', '.tmp'))).toEqual([]);

    fill(0);
    const submitted = await app.http.post('/v1/renders').set(bearer(key)).send({ width: 32, height: 32, output_format: 'png', background_color: '#336699' });
    expect(submitted.status).toBe(202);
    const job = await waitFor(
      async () => (await app.http.get(`/v1/renders/${submitted.body.id}`).set(bearer(key))).body,
      (render) => ['completed', 'failed', 'cancelled'].includes(render.status),
      120_000,
      250,
    );
    expect(job.status).toBe('failed');
    expect(job.error).toMatchObject({ code: 'storage_full', message: expect.stringContaining('storage is full') });
    const [row] = await app.running.app.get(DataSource).query('SELECT attempts FROM jobs WHERE id = $1', [job.id]);
    expect(row.attempts).toBe(1);

    // Space freed: ready again.
    rmSync(filler);
    expect((await app.http.get('/v1/ready')).status).toBe(200);
  }, 180_000);
});
