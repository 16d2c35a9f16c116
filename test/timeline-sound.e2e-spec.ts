import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { MediaInfo, RenderRequest, resolveRequest } from '../composition/src/schema';
import { RemotionRenderer } from '../src/renders/engine/remotion-renderer';
import { timelineSoundPlan } from '../src/renders/engine/sound/timeline-sound-plan';
import { Checks } from './helpers/checks';
import { probe } from './helpers/media';
import { startTestApp, TestApp } from './helpers/test-app';

const run = promisify(execFile);

/** Interleaved 48 kHz stereo 16-bit samples of a file, decoded by ffmpeg. */
async function stereoSamples(file: string): Promise<Int16Array> {
  const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', file, '-f', 's16le', '-ac', '2', '-ar', '48000', '-'], { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 });
  const bytes = stdout as unknown as Buffer;
  return new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + (bytes.length & ~1)));
}

/** Level of `test − reference` relative to the reference, dB: RMS over RMS and peak over peak. */
function difference(reference: Int16Array, test: Int16Array) {
  let referenceSquares = 0;
  let differenceSquares = 0;
  let referencePeak = 0;
  let differencePeak = 0;
  let equal = 0;
  for (let i = 0; i < reference.length; i += 1) {
    const d = (test[i] ?? 0) - reference[i];
    referenceSquares += reference[i] ** 2;
    differenceSquares += d ** 2;
    referencePeak = Math.max(referencePeak, Math.abs(reference[i]));
    differencePeak = Math.max(differencePeak, Math.abs(d));
    if (d === 0) equal += 1;
  }
  const db = (ratio: number) => (ratio === 0 ? -Infinity : 20 * Math.log10(ratio));
  return {
    rmsDb: db(Math.sqrt(differenceSquares / referenceSquares)),
    peakDb: db(differencePeak / referencePeak),
    referenceRms: Math.sqrt(referenceSquares / reference.length),
    equalShare: equal / reference.length,
  };
}

/**
 * The sound of a held render mixed without the browser (src/renders/engine/timeline-sound.ts)
 * against Remotion's own audio-only pass over the same props: one request with every sound
 * feature, both ways, decoded and compared; and a request the mix cannot do, which falls back.
 */
describe('timeline sound: the ffmpeg mix against the browser pass', () => {
  let app: TestApp;
  let renderer: RemotionRenderer;
  let unmount: () => void;
  const fixtures = mkdtempSync(path.join(tmpdir(), 'vrs-sound-fixtures-'));
  const outputs = mkdtempSync(path.join(tmpdir(), 'vrs-sound-outputs-'));
  const url = (name: string) => `https://media.example/${name}`;
  const media: Record<string, MediaInfo> = {};
  const sources: Record<string, string> = {};

  beforeAll(async () => {
    const ffmpeg = (...args: string[]) => run('ffmpeg', ['-v', 'error', '-y', ...args]);
    // A mono bed at 48 kHz, stereo music at 44.1 kHz (resampled), a stereo beep, a clip with AAC sound.
    await ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=220:sample_rate=48000:duration=3', '-af', 'volume=4', path.join(fixtures, 'bed.wav'));
    await ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=330:sample_rate=44100:duration=3', '-f', 'lavfi', '-i', 'sine=frequency=495:sample_rate=44100:duration=3', '-filter_complex', 'join=inputs=2:channel_layout=stereo,volume=3', path.join(fixtures, 'music.wav'));
    await ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=1000:sample_rate=48000:duration=0.5', '-ac', '2', path.join(fixtures, 'beep.wav'));
    await ffmpeg('-f', 'lavfi', '-i', 'testsrc2=size=160x90:rate=30:duration=2', '-f', 'lavfi', '-i', 'sine=frequency=660:sample_rate=48000:duration=2', '-af', 'volume=3', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', path.join(fixtures, 'clip.mp4'));
    app = await startTestApp({ env: { ALLOW_PRIVATE_NETWORK: 'true' } });
    renderer = app.running.app.get(RemotionRenderer);
    await renderer.mediaServer.start();
    const names = ['bed.wav', 'music.wav', 'beep.wav', 'clip.mp4'];
    const mounted = renderer.mediaServer.mount(names.map((name) => ({ file: path.join(fixtures, name), contentType: name.endsWith('.mp4') ? 'video/mp4' : 'audio/wav' })));
    unmount = mounted.unmount;
    for (const [index, name] of names.entries()) {
      const probed = await probe(path.join(fixtures, name));
      const video = probed.streams.find((stream) => stream.codec_type === 'video');
      media[url(name)] = {
        duration: Number(probed.format.duration),
        has_audio: probed.streams.some((stream) => stream.codec_type === 'audio'),
        has_video: Boolean(video),
        ...(video ? { width: Number(video.width), height: Number(video.height) } : {}),
      };
      sources[url(name)] = mounted.urls[index];
    }
  }, 180_000);

  afterAll(async () => {
    unmount?.();
    await app?.close();
    rmSync(fixtures, { recursive: true, force: true });
    rmSync(outputs, { recursive: true, force: true });
  });

  /** Offsets, trims, volume, fades, speed, ducking, a transition between sounds, a video's sound, overlaps. */
  const request = (): RenderRequest => ({
    width: 320, height: 180, frame_rate: 30, duration: 2,
    elements: [
      { type: 'audio', id: 'bed', source_url: url('bed.wav'), track: 1, in_point: 0.2, out_point: 1.4, volume: 0.8, fade_in_duration: 0.3, duck: { under: ['beep'], amount_db: 9, attack: 0.1, release: 0.2 } },
      { type: 'audio', id: 'music', source_url: url('music.wav'), track: 1, in_point: 0.5, speed: 1.5, volume: '60%', fade_out_duration: 0.4 },
      { type: 'audio', id: 'beep', source_url: url('beep.wav'), time: 0.6, volume: 0.5 },
      { type: 'video', source_url: url('clip.mp4'), time: 0.1, in_point: 0.3, out_point: 1.5, volume: 0.7, width: 160, height: 90 },
    ],
    transitions: [{ type: 'cross_dissolve', from_id: 'bed', to_id: 'music', duration: 0.3 }],
  });

  it('mixes the same samples as Remotion\'s audio pass (or within −60 dB, RMS and peak)', async () => {
    const props = { request: request(), media, sources };
    const resolved = resolveRequest(props.request, media);
    const plan = timelineSoundPlan(props, resolved);
    expect(plan).toMatchObject({ ok: true, clips: expect.any(Array) });
    expect(plan.ok && plan.clips.length).toBe(4);
    const signal = new AbortController().signal;
    const mixedFile = path.join(outputs, 'mixed.wav');
    const browserFile = path.join(outputs, 'browser.wav');
    await expect(renderer.soundTrack({ props, resolved, outputPath: mixedFile, signal }, 'ffmpeg')).resolves.toEqual({ sound_path: 'ffmpeg' });
    await expect(renderer.soundTrack({ props, resolved, outputPath: browserFile, signal }, 'browser')).resolves.toEqual({ sound_path: 'browser' });
    const [mixed, browser] = await Promise.all([stereoSamples(mixedFile), stereoSamples(browserFile)]);
    const compared = difference(browser, mixed);
    // Outside the clip (0.1 s to 1.3 s) every source is PCM, decoded alike by both: no sample may differ.
    const clipSpan = [0.1 * 96_000, 1.3 * 96_000];
    const outside = (samples: Int16Array) => Int16Array.from([...samples.subarray(0, clipSpan[0]), ...samples.subarray(clipSpan[1])]);
    const pcmOnly = difference(outside(browser), outside(mixed));
    const c = new Checks(0);
    c.that('same length as the browser pass (2 s of 48 kHz stereo)', mixed.length === browser.length && browser.length === 2 * 96_000, { mixed: mixed.length, browser: browser.length });
    c.that('the reference is not silent', compared.referenceRms > 1000, compared);
    c.that('difference RMS at most −60 dB of the reference RMS', compared.rmsDb <= -60, compared);
    c.that('difference peak at most −60 dB of the reference peak', compared.peakDb <= -60, compared);
    c.that('sample-identical where only PCM sources sound (the rest is AAC decoding, float to 16 bits)', pcmOnly.equalShare === 1, pcmOnly);
    c.assertAll();
  }, 240_000);

  it('falls back to the browser pass for what it cannot mix (a speed ramp), saying why', async () => {
    const ramped = request();
    ramped.elements = ramped.elements!.map((element) => (element.type === 'audio' && element.id === 'music' ? { ...element, speed: undefined, playback_rate_keyframes: [{ time: 0, rate: 1 }, { time: 0.5, rate: 2 }] } : element));
    const props = { request: ramped, media, sources };
    const resolved = resolveRequest(ramped, media);
    expect(timelineSoundPlan(props, resolved)).toEqual({ ok: false, reason: expect.stringContaining('speed ramp') });
    const file = path.join(outputs, 'fallback.wav');
    const result = await renderer.soundTrack({ props, resolved, outputPath: file, signal: new AbortController().signal });
    expect(result).toEqual({ sound_path: 'browser', sound_fallback: expect.stringContaining('speed ramp') });
    const samples = await stereoSamples(file);
    expect(samples.length).toBe(2 * 96_000);
    expect(samples.some((sample) => Math.abs(sample) > 1000)).toBe(true);
  }, 240_000);
});
