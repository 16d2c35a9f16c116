import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { audioSamples, ffmpeg, Frame, frameAt, soundSpans } from './helpers/media';
import { Checks } from './helpers/checks';
import { withRenderApp } from './helpers/render-app';

const run = promisify(execFile);

/** The bed is a steady low tone (espeak's voice has next to nothing at exactly 50 Hz). */
const BED_HZ = 50;
const SPEECH_AT = 1;

/**
 * Level in dB of the bed alone in samples [from, to) seconds: the RMS of the BED_HZ component
 * (one DFT bin over a whole number of periods), so the voice mixed over it does not count.
 */
function bedDb(samples: Int16Array, rate: number, from: number, to: number): number {
  const period = rate / BED_HZ;
  const first = Math.floor(from * rate);
  const count = Math.floor((Math.min(samples.length, Math.floor(to * rate)) - first) / period) * period;
  let re = 0;
  let im = 0;
  for (let n = 0; n < count; n += 1) {
    const angle = (2 * Math.PI * BED_HZ * n) / rate;
    re += (samples[first + n] / 32768) * Math.cos(angle);
    im -= (samples[first + n] / 32768) * Math.sin(angle);
  }
  const amplitude = (2 * Math.hypot(re, im)) / count;
  return 20 * Math.log10(amplitude / Math.SQRT2 + 1e-12);
}

/** Integrated loudness and true peak as ffmpeg's ebur128 filter measures them. */
async function ebur128(file: string): Promise<{ integrated: number; truePeak: number }> {
  const { stderr } = await run('ffmpeg', ['-v', 'info', '-nostats', '-i', file, '-vn', '-af', 'ebur128=peak=true', '-f', 'null', '-']);
  const summary = stderr.slice(stderr.lastIndexOf('Summary:'));
  const integrated = /I:\s+(-?[\d.]+) LUFS/.exec(summary);
  const peak = /True peak:\s+Peak:\s+(-?[\d.]+|-inf) dBFS/.exec(summary);
  if (!integrated || !peak) throw new Error(`no ebur128 summary in ${summary}`);
  return { integrated: Number(integrated[1]), truePeak: peak[1] === '-inf' ? -Infinity : Number(peak[1]) };
}

/** Height of the tallest run of bright pixels in any column of the frame. */
function tallestColumn(frame: Frame): number {
  let tallest = 0;
  for (let x = 0; x < frame.width; x += 1) {
    let column = 0;
    for (let y = 0; y < frame.height; y += 1) if (frame.at(x, y).every((channel) => channel > 160)) column += 1;
    tallest = Math.max(tallest, column);
  }
  return tallest;
}

/**
 * Issue 15's sound features through the REST API: a tone bed ducked under espeak speech,
 * a mix normalised to a loudness target, a waveform that follows a tone.
 */
describe('render audio: ducking, loudness, waveform (through the REST API)', () => {
  /** Where the voice is audible in speech.wav, seconds. */
  let voice: { start: number; end: number };
  const house = withRenderApp({
    name: 'audio',
    fixtures: async (dir) => {
      await run('espeak-ng', ['-w', path.join(dir, 'speech.wav'), 'Hello there, this is the voice over.']);
      await ffmpeg('-f', 'lavfi', '-i', `sine=frequency=${BED_HZ}:sample_rate=48000:duration=6`, '-af', 'volume=0.4', path.join(dir, 'bed.wav'));
      await ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=1000:sample_rate=48000:duration=1', '-af', 'volume=0.5', path.join(dir, 'beep.wav'));
      const spans = soundSpans(await audioSamples(path.join(dir, 'speech.wav'), 16000), 16000, 300);
      voice = { start: spans[0].start, end: spans.at(-1)!.end };
    },
  });
  const url = house.mediaUrl;

  it('ducks a music bed under detected speech by at least amount_db, and brings it back after release', async () => {
    const duck = { under: 'speech', amount_db: 12, attack: 0.15, release: 0.4 };
    const duration = SPEECH_AT + voice.end + 1.6;
    const { job, file } = await house.render('ducked', {
      width: 320, height: 180, duration, frame_rate: 30,
      elements: [
        { type: 'audio', id: 'bed', source_url: url('bed.wav'), duck },
        { type: 'audio', id: 'voice', source_url: url('speech.wav'), time: SPEECH_AT },
      ],
    }, 300_000);
    const rate = 16000;
    const bed = await audioSamples(file, rate);
    // The job reports where the voice detector heard speech (a Player merges it into `media`).
    const detected = job.output.sound_analysis[url('speech.wav')].speech_spans as [number, number][];
    const speechStart = SPEECH_AT + detected[0][0];
    const speechEnd = SPEECH_AT + detected.at(-1)![1];
    const c = new Checks(0);
    c.near('speech detected where the voice starts, s', speechStart, SPEECH_AT + voice.start, 0.15);
    c.near('speech detected until the voice ends, s', speechEnd, SPEECH_AT + voice.end, 0.2);
    const before = bedDb(bed, rate, 0.1, speechStart - duck.attack - 0.05);
    const during = bedDb(bed, rate, speechStart + 0.05, speechEnd - 0.05);
    const after = bedDb(bed, rate, speechEnd + duck.release + 0.05, duration - 0.05);
    c.that('the bed is at least amount_db quieter while the voice speaks', before - during >= duck.amount_db - 0.1, { before, during });
    c.near('the bed is back to its level after the release, dB', after, before, 0.5);
    // Linear in dB: half-way through the release the bed is amount_db / 2 down.
    const ramp = bedDb(bed, rate, speechEnd + duck.release / 2 - 0.04, speechEnd + duck.release / 2 + 0.04);
    c.near('half-way through the release, dB below the bed', before - ramp, duck.amount_db / 2, 1.5);
    c.assertAll();
  }, 420_000);

  it('normalises the mix to the loudness target under the true-peak ceiling and reports the measurement', async () => {
    const target = { target_lufs: -16, true_peak_db: -2 };
    const { job, file } = await house.render('normalised', {
      width: 320, height: 180, duration: 3, frame_rate: 30,
      audio_normalize: target,
      elements: [
        { type: 'audio', source_url: url('bed.wav'), volume: 0.1 },
        { type: 'audio', source_url: url('speech.wav'), time: 0.3, volume: 0.3 },
      ],
    }, 300_000);
    const measured = await ebur128(file);
    const c = new Checks(0);
    c.near('integrated loudness of the output, LUFS', measured.integrated, target.target_lufs, 1);
    c.that('true peak under the ceiling', measured.truePeak <= target.true_peak_db, measured.truePeak);
    const report = job.output.loudness;
    c.near('reported integrated loudness matches ebur128', report.integrated_lufs, measured.integrated, 0.5);
    c.near('reported true peak matches ebur128', report.true_peak_db, measured.truePeak, 0.5);
    c.that('reports the loudness before, well under the target', report.before.integrated_lufs < target.target_lufs - 3, report.before);
    c.that('reports the target', report.target_lufs === target.target_lufs && report.true_peak_ceiling_db === target.true_peak_db, report);
    c.assertAll();
  }, 420_000);

  it('draws waveform bars that are taller during a loud tone than during silence', async () => {
    const { file } = await house.render('waveform', {
      width: 320, height: 180, duration: 2, frame_rate: 30, background_color: '#000000',
      elements: [
        { type: 'audio', id: 'beep', source_url: url('beep.wav'), time: 1 },
        { type: 'waveform', source: 'beep', fill_color: '#ffffff', bar_count: 16, smoothing: 0, width: '90%', height: '80%' },
      ],
    }, 300_000);
    const silent = tallestColumn(await frameAt(file, 0.5));
    const loud = tallestColumn(await frameAt(file, 1.5));
    const c = new Checks(0);
    c.that('silence: only the baseline', silent <= 4, silent);
    c.that('the tone: a bar over half the waveform height', loud >= 0.5 * 0.8 * 180, loud);
    c.assertAll();
  }, 420_000);

  it('lists ducking, loudness and the waveform element in /v1/capabilities with their JSON Schemas', async () => {
    const caps = (await house.app.http.get('/v1/capabilities').expect(200)).body;
    expect(caps.audio.ducking.schema.properties.under).toBeDefined();
    expect(caps.audio.ducking.defaults).toEqual({ amount_db: 12, attack: 0.2, release: 0.5 });
    expect(caps.audio.loudness.formats).toEqual(['mp4', 'webm', 'mov']);
    expect(Object.keys(caps.audio.loudness.output['output.loudness'])).toEqual(expect.arrayContaining(['integrated_lufs', 'true_peak_db']));
    expect(caps.request_schema.properties.audio_normalize).toBeDefined();
    expect(caps.request_schema.properties.audio_normalize['x-supported']).toBeUndefined();
    const waveform = caps.element_schemas.waveform;
    expect(waveform.properties.style.enum).toEqual(['bars', 'line']);
    expect(Object.values(waveform.properties).some((property) => (property as Record<string, unknown>)['x-supported'] === false)).toBe(false);
    expect(caps.element_schemas.audio.properties.duck).toBeDefined();
    expect(caps.element_schemas.video.properties.duck).toBeDefined();
  });

  it('refuses ducking under an id that is not a sound element, and normalising a still', async () => {
    const refused = await house.api().post('/v1/renders').send({
      width: 320, height: 180, output_format: 'png',
      audio_normalize: {},
      elements: [{ type: 'audio', source_url: url('bed.wav'), duck: { under: ['nobody'] } }],
    });
    expect(refused.status).toBe(422);
    const pointers = (refused.body.error.details.errors as { pointer: string }[]).map((error) => error.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/elements/0/duck/under/0', '/audio_normalize']));
  });
});
