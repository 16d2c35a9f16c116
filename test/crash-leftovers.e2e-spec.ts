import { existsSync, linkSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from 'pg';
import { ABANDONED_ASSET_SWEEP_QUEUE, ABANDONED_COPY_SECONDS, ABANDONED_SLOT_SECONDS, AbandonedAssetsWorker } from '../src/assets/abandoned-assets.worker';
import { newId } from '../src/common/ids';
import { STALE_FILE_SECONDS } from '../src/infra/storage/stale-files.worker';
import { Storage } from '../src/infra/storage/storage';
import { waitFor } from './helpers/media';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

/** Sets a file's or folder's mtime (and atime) `secondsAgo` into the past, as a crashed process left it. */
function backdate(target: string, secondsAgo: number): void {
  const when = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(target, when, when);
}

/**
 * What a crashed process leaves behind, found by the next process to start on the same disk and
 * database: stale work folders and half-written uploads are removed, a live neighbour's files are
 * not; upload slots whose bytes never came are deleted, and bytes that came unannounced are probed.
 */
describe('crash leftovers: temporary files and abandoned upload slots', () => {
  let first: TestApp;
  let db: Client;
  let key: string;
  let workspaceId: string;

  beforeAll(async () => {
    first = await startTestApp({ role: 'api' });
    ({ key, workspaceId } = await signupVerified(first));
    db = new Client({ connectionString: first.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await first.close();
  });

  it('sweeps work folders and partial uploads older than the longest job at start, and keeps younger ones and fresh links', async () => {
    const work = path.join(first.dataDir, 'work');
    const uploadsInFlight = path.join(first.dataDir, 'storage', '.tmp');
    mkdirSync(work, { recursive: true });
    mkdirSync(uploadsInFlight, { recursive: true });
    const stale = STALE_FILE_SECONDS + 600;

    // A render that crashed: its folder, input and half-made output untouched for longer than any job.
    const deadRender = path.join(work, 'render_01DEAD-abc123');
    mkdirSync(path.join(deadRender, 'frames'), { recursive: true });
    writeFileSync(path.join(deadRender, 'input.mp4'), 'input');
    writeFileSync(path.join(deadRender, 'frames', '0001.png'), 'frame');
    for (const entry of [path.join(deadRender, 'frames', '0001.png'), path.join(deadRender, 'frames'), path.join(deadRender, 'input.mp4'), deadRender]) {
      backdate(entry, stale);
    }
    const deadProbe = path.join(work, 'probe-asset_01DEAD-aa.mp4');
    writeFileSync(deadProbe, 'probe input');
    backdate(deadProbe, stale);
    const deadUpload = path.join(uploadsInFlight, 'a1b2c3d4e5f6a1b2c3d4e5f6');
    writeFileSync(deadUpload, 'half an upload');
    backdate(deadUpload, stale);

    // A live job of another process on this disk: started long ago, but it wrote a frame recently.
    const liveRender = path.join(work, 'render_01LIVE-def456');
    mkdirSync(liveRender);
    writeFileSync(path.join(liveRender, 'input.mp4'), 'input');
    writeFileSync(path.join(liveRender, 'output.mp4'), 'growing');
    backdate(path.join(liveRender, 'input.mp4'), stale);
    backdate(liveRender, stale);
    backdate(path.join(liveRender, 'output.mp4'), STALE_FILE_SECONDS - 600);
    // A live probe's input: a hard link made just now to a stored file last modified long ago.
    const storedLongAgo = path.join(first.dataDir, 'storage', 'old-object.mp4');
    writeFileSync(storedLongAgo, 'stored bytes');
    backdate(storedLongAgo, stale * 10);
    const liveProbe = path.join(work, 'probe-asset_01LIVE-bb.mp4');
    linkSync(storedLongAgo, liveProbe);
    const liveUpload = path.join(uploadsInFlight, 'f6e5d4c3b2a1f6e5d4c3b2a1');
    writeFileSync(liveUpload, 'arriving');

    // The next process to start on this disk does the sweep.
    const second = await startTestApp({ role: 'api', databaseUrl: first.databaseUrl, dataDir: first.dataDir });
    try {
      await waitFor(async () => [deadRender, deadProbe, deadUpload].some(existsSync), (anyLeft) => !anyLeft, 30_000, 100);
      for (const kept of [liveRender, path.join(liveRender, 'input.mp4'), liveProbe, liveUpload, storedLongAgo]) {
        expect(existsSync(kept)).toBe(true);
      }
    } finally {
      await second.close();
    }
  });

  it('deletes upload slots whose bytes never came and copies whose copier died, keeps young ones, and probes bytes that came unannounced', async () => {
    const reserve = async (body: object) => {
      const res = await first.http.post('/v1/uploads').set(bearer(key)).send(body);
      expect(res.status).toBe(201);
      return res.body.asset_id as string;
    };
    const abandoned = await reserve({ content_type: 'image/png', filename: 'never-sent.png' });
    const young = await reserve({ content_type: 'image/png', filename: 'on-its-way.png' });
    const unannounced = await reserve({ content_type: 'video/mp4', filename: 'sent-to-gcs.mp4' });
    // Bytes that reached storage without the upload route's event (a GCS upload nobody confirmed).
    const row = await db.query('SELECT storage_key FROM assets WHERE id = $1', [unannounced]);
    const source = path.join(first.dataDir, 'bytes.mp4');
    writeFileSync(source, 'not really a video');
    await first.running.app.get(Storage).putFile(row.rows[0].storage_key, source, 'video/mp4');

    // External copies as claimed by ExternalCopiesService: one whose copier died long ago, one whose lease
    // lapsed a moment ago (a taker may be on its way), one being copied right now.
    const copy = async (name: string, leaseSecondsFromNow: number) => {
      const id = newId('asset');
      await db.query(
        `INSERT INTO assets (id, workspace_id, kind, status, ingested_from, storage_key, content_type, name, ingest_lease_until)
         VALUES ($1, $2, 'video', 'ingesting', $3, $4, 'application/octet-stream', $5, now() + make_interval(secs => $6))`,
        [id, workspaceId, `https://media.example.com/${name}`, `${workspaceId}/assets/${id}.mp4`, name, leaseSecondsFromNow],
      );
      return id;
    };
    const deadCopy = await copy('dead.mp4', -(ABANDONED_COPY_SECONDS + 60));
    const lapsedCopy = await copy('lapsed.mp4', -60);
    const liveCopy = await copy('live.mp4', 60);

    await db.query(`UPDATE assets SET created_at = now() - make_interval(secs => $2) WHERE id = ANY($1)`, [
      [abandoned, unannounced],
      ABANDONED_SLOT_SECONDS + 60,
    ]);
    // The image is listed while reserved: the abandoned slot shows up until it is swept.
    const listed = await first.http.get('/v1/workspace/assets?kind=image').set(bearer(key)).expect(200);
    expect(listed.body.data.map((a: { id: string }) => a.id)).toEqual(expect.arrayContaining([abandoned, young]));

    const second = await startTestApp({ role: 'api', databaseUrl: first.databaseUrl, dataDir: first.dataDir });
    try {
      const gone = await waitFor(() => first.http.get(`/v1/workspace/assets/${abandoned}`).set(bearer(key)), (res) => res.status === 404, 30_000, 100);
      expect(gone.body.error.code).toBe('not_found');
      const after = await first.http.get('/v1/workspace/assets?kind=image').set(bearer(key)).expect(200);
      expect(after.body.data.map((a: { id: string }) => a.id)).not.toContain(abandoned);

      const kept = await first.http.get(`/v1/workspace/assets/${young}`).set(bearer(key)).expect(200);
      expect(kept.body).toMatchObject({ status: 'reserved', bytes_uploaded: false });
      const statusOf = (id: string) => db.query('SELECT status FROM assets WHERE id = $1', [id]);
      const probed = await waitFor(() => statusOf(unannounced), (res) => res.rows[0]?.status !== 'reserved', 30_000, 100);
      expect(probed.rows[0].status).toBe('probing');
      const copiesLeft = () => db.query('SELECT id FROM assets WHERE id = ANY($1) ORDER BY name', [[deadCopy, lapsedCopy, liveCopy]]);
      const copies = await waitFor(copiesLeft, (res) => !res.rows.some((r: { id: string }) => r.id === deadCopy), 30_000, 100);
      expect(copies.rows.map((r: { id: string }) => r.id)).toEqual([lapsedCopy, liveCopy]);

      // Beside the start-up sweep, pg-boss runs one on a schedule, taken by a worker.
      const schedule = await db.query('SELECT cron FROM pgboss.schedule WHERE name = $1', [ABANDONED_ASSET_SWEEP_QUEUE.name]);
      expect(schedule.rows).toEqual([{ cron: '*/15 * * * *' }]);
    } finally {
      await second.close();
    }
  });

  it('removes a slot only while it is still reserved: bytes landing during the sweep keep the asset', async () => {
    const slot = await first.http.post('/v1/uploads').set(bearer(key)).send({ content_type: 'image/png' });
    expect(slot.status).toBe(201);
    const id = slot.body.asset_id as string;
    await db.query(`UPDATE assets SET created_at = now() - make_interval(secs => $2) WHERE id = $1`, [id, ABANDONED_SLOT_SECONDS + 60]);
    // The upload lands between the sweep's look at storage (nothing yet) and its delete.
    const storage = first.running.app.get(Storage);
    const stat = jest.spyOn(storage, 'stat').mockImplementationOnce(async () => {
      await db.query(`UPDATE assets SET status = 'probing' WHERE id = $1`, [id]);
      return null;
    });
    try {
      expect(await first.running.app.get(AbandonedAssetsWorker).sweep()).not.toContain(id);
    } finally {
      stat.mockRestore();
    }
    expect((await db.query('SELECT status FROM assets WHERE id = $1', [id])).rows).toEqual([{ status: 'probing' }]);
  });
});
