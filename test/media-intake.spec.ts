import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { AssetProbeService } from '../src/assets/asset-probe.service';
import { AssetRepository } from '../src/assets/asset.repository';
import { AssetsService } from '../src/assets/assets.service';
import { MediaIntakeService } from '../src/assets/media-intake.service';
import { ApiError } from '../src/common/errors/api-error';
import { Storage } from '../src/infra/storage/storage';
import { UploadEventsService } from '../src/infra/storage/upload-events.service';
import { UploadsService } from '../src/uploads/uploads.service';
import { makeVideo } from './helpers/media';
import { startTestApp, TestApp } from './helpers/test-app';
import { insertWorkspace } from './helpers/workspaces';

/** The upload limit of this file's app: the video and the font fit under it, the padded file does not. */
const UPLOAD_MAX_BYTES = 1_000_000;
const FONT = '/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf';

/**
 * The middle tier for media intake (issue 34): uploads reserved, bytes landing in local storage,
 * the probe, and the submit checks of a source, by calling the services against the real
 * PostgreSQL, without HTTP. An API-only app, so no worker takes the probe's queue entry: each test
 * runs the probe itself (AssetProbeService) where the worker would.
 */
describe('media intake against the real database', () => {
  let app: TestApp;
  let uploads: UploadsService;
  let assets: AssetsService;
  let probes: AssetProbeService;
  let intake: MediaIntakeService;
  let rows: AssetRepository;
  let storage: Storage;
  let db: DataSource;
  let fixtures: string;
  let video: string;

  beforeAll(async () => {
    fixtures = mkdtempSync(path.join(tmpdir(), 'vrs-media-intake-'));
    video = path.join(fixtures, 'clip.mp4');
    await makeVideo(video, { width: 160, height: 90, seconds: 1, fps: 10 });
    writeFileSync(path.join(fixtures, 'not-media.mp4'), 'plain text, not a video\n'.repeat(20));
    writeFileSync(path.join(fixtures, 'too-large.bin'), Buffer.alloc(UPLOAD_MAX_BYTES + 1, 7));
    app = await startTestApp({ role: 'api', env: { UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES) } });
    const nest = app.running.app;
    uploads = nest.get(UploadsService);
    assets = nest.get(AssetsService);
    probes = nest.get(AssetProbeService);
    intake = nest.get(MediaIntakeService);
    rows = nest.get(AssetRepository);
    storage = nest.get(Storage);
    db = nest.get(DataSource);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    if (fixtures) rmSync(fixtures, { recursive: true, force: true });
  });

  const newWorkspace = () => insertWorkspace(app.running.app, { name: 'Media intake test' });

  /** What a signed PUT to the local files route does: the bytes stored under the slot's key, then the upload announced. */
  async function land(assetId: string, file: string): Promise<void> {
    const asset = (await rows.findById(assetId))!;
    await storage.putFile(asset.storageKey, file, asset.contentType);
    await app.running.app.get(UploadEventsService).uploaded(asset.storageKey);
  }

  const probeEntries = async (assetId: string) =>
    Number((await db.query<{ n: string }[]>(`SELECT count(*) AS n FROM pgboss.job WHERE name = 'asset-probe' AND data->>'asset_id' = $1`, [assetId]))[0].n);

  /** The ApiError a call rejects with (fails the test when it resolves or throws something else). */
  async function refusal(call: Promise<unknown>): Promise<ApiError> {
    const error = await call.then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }

  it('takes an upload from reserved through probing to present, with what ffprobe measured, and queues one probe', async () => {
    const workspace = await newWorkspace();
    const slot = await uploads.reserve(workspace, { content_type: 'video/mp4', filename: 'clip.mp4', duration: 99 });
    expect((await rows.findById(slot.asset_id))?.status).toBe('reserved');
    expect(await probeEntries(slot.asset_id)).toBe(0);

    await land(slot.asset_id, video);
    expect((await rows.findById(slot.asset_id))?.status).toBe('probing');
    expect(await probeEntries(slot.asset_id)).toBe(1);

    await probes.probe(slot.asset_id);
    const detail = await assets.detail(workspace, slot.asset_id);
    expect(detail).toMatchObject({ status: 'present', kind: 'video', width: 160, height: 90, video_codec: 'h264', audio_codec: 'aac', bytes_uploaded: true, error: null });
    // The probed length replaces the client's guess.
    expect(detail.duration).toBeCloseTo(1, 1);
    expect(detail.size_bytes).toBeGreaterThan(0);
    // A submit naming it gets its measured length for the estimate.
    const media = await intake.prepareSource(workspace, { url: slot.source_url, pointer: '/source_url', kind: 'video' });
    expect(media?.duration).toBeCloseTo(1, 1);
  }, 60_000);

  it('marks bytes that do not decode unreadable with codec_unsupported, and a submit naming them gets that code', async () => {
    const workspace = await newWorkspace();
    const slot = await uploads.reserve(workspace, { content_type: 'video/mp4', filename: 'broken.mp4' });
    await land(slot.asset_id, path.join(fixtures, 'not-media.mp4'));
    await probes.probe(slot.asset_id);

    const detail = await assets.detail(workspace, slot.asset_id);
    expect(detail).toMatchObject({ status: 'unreadable', error: { code: 'codec_unsupported', message: expect.stringContaining('ffprobe') } });
    const refused = await refusal(intake.prepareSource(workspace, { url: slot.source_url, pointer: '/source_url', kind: 'video' }));
    expect(refused).toMatchObject({ code: 'codec_unsupported', details: { pointer: '/source_url', asset_id: slot.asset_id } });
  }, 60_000);

  it('reads a font upload as a font: its family when it is one, invalid_source when it is not', async () => {
    const workspace = await newWorkspace();
    const font = await uploads.reserve(workspace, { content_type: 'font/ttf', filename: 'serif.ttf' });
    await land(font.asset_id, FONT);
    await probes.probe(font.asset_id);
    expect(await assets.detail(workspace, font.asset_id)).toMatchObject({ status: 'present', kind: 'font', font_family: 'DejaVu Serif', error: null });

    const fake = await uploads.reserve(workspace, { content_type: 'font/woff2', filename: 'fake.woff2' });
    await land(fake.asset_id, video);
    await probes.probe(fake.asset_id);
    expect(await assets.detail(workspace, fake.asset_id)).toMatchObject({ status: 'unreadable', font_family: null, error: { code: 'invalid_source' } });
  }, 60_000);

  it('keeps assets to their workspace: another reads them as missing, and a submit there gets source_not_found', async () => {
    const owner = await newWorkspace();
    const other = await newWorkspace();
    const slot = await uploads.reserve(owner, { content_type: 'video/mp4', filename: 'clip.mp4' });
    await land(slot.asset_id, video);
    await probes.probe(slot.asset_id);

    expect(await refusal(assets.detail(other, slot.asset_id))).toMatchObject({ code: 'not_found' });
    expect(await refusal(intake.prepareSource(other, { url: slot.source_url, pointer: '/source_url', kind: 'video' }))).toMatchObject({ code: 'source_not_found' });
    expect((await assets.list(other, { limit: 10 })).data).toEqual([]);
    expect((await assets.list(owner, { limit: 10 })).data.map((asset) => asset.id)).toEqual([slot.asset_id]);
    // The owner's submit is answered; the row is untouched by the other workspace's reads.
    await expect(intake.prepareSource(owner, { url: slot.source_url, pointer: '/source_url', kind: 'video' })).resolves.toMatchObject({ duration: expect.any(Number) });
  }, 60_000);

  it('refuses a reserved asset as not ready until its bytes land', async () => {
    const workspace = await newWorkspace();
    const slot = await uploads.reserve(workspace, { content_type: 'video/mp4', filename: 'later.mp4' });
    const refused = await refusal(intake.prepareSource(workspace, { url: slot.source_url, pointer: '/elements/0/source_url', kind: 'video' }));
    expect(refused).toMatchObject({ code: 'asset_not_ready', details: { pointer: '/elements/0/source_url', asset_id: slot.asset_id, status: 'reserved' } });
    expect(await assets.detail(workspace, slot.asset_id)).toMatchObject({ status: 'reserved', bytes_uploaded: false });
  }, 60_000);

  it('holds the upload size cap: a declared size above it is refused, undeclared bytes above it are deleted when they land', async () => {
    const workspace = await newWorkspace();
    const declared = await refusal(uploads.reserve(workspace, { content_type: 'video/mp4', size_bytes: UPLOAD_MAX_BYTES + 1 }));
    expect(declared).toMatchObject({ code: 'source_too_large', details: { pointer: '/size_bytes' } });
    expect(await db.query(`SELECT id FROM assets WHERE workspace_id = $1`, [workspace.id])).toEqual([]);

    // Bytes that arrive without an announcement (an S3 or GCS upload with no declared size) are
    // checked when the asset is next read.
    const slot = await uploads.reserve(workspace, { content_type: 'video/mp4', filename: 'huge.mp4' });
    const asset = (await rows.findById(slot.asset_id))!;
    await storage.putFile(asset.storageKey, path.join(fixtures, 'too-large.bin'), 'video/mp4');
    const detail = await assets.detail(workspace, slot.asset_id);
    expect(detail).toMatchObject({ status: 'unreadable', size_bytes: UPLOAD_MAX_BYTES + 1, bytes_uploaded: false, error: { code: 'source_too_large' } });
    expect(await storage.stat(asset.storageKey)).toBeNull();
    expect(await probeEntries(slot.asset_id)).toBe(0);
    const refused = await refusal(intake.prepareSource(workspace, { url: slot.source_url, pointer: '/source_url', kind: 'video' }));
    expect(refused.code).toBe('source_too_large');
  }, 60_000);
});
