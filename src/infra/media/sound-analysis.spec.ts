import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { audibleSpans, decodeMono, speechSpans, spansOf } from './sound-analysis';

describe('sound analysis for ducking', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'sound-analysis-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('joins frames into spans, bridging short pauses and dropping blips', () => {
    const flags = [false, true, true, false, false, true, false, false, false, false, false, false, false, true];
    expect(spansOf(flags, 0.1, 0)).toEqual([[0.1, 0.6], [1.3, 1.4]]);
    expect(spansOf(flags, 0.1, 0.2)).toEqual([[0.1, 0.6]]);
  });

  it('finds where speech is between silences, and a steady tone is audible but not speech', async () => {
    const speech = path.join(dir, 'speech.wav');
    const padded = path.join(dir, 'padded.wav');
    const tone = path.join(dir, 'tone.wav');
    execFileSync('espeak-ng', ['-w', speech, 'Hello there, this is a test.']);
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'anullsrc=r=22050:cl=mono:d=1', '-i', speech, '-f', 'lavfi', '-i', 'anullsrc=r=22050:cl=mono:d=1',
      '-filter_complex', '[0][1][2]concat=n=3:v=0:a=1', padded]);
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=2:sample_rate=48000', '-af', 'volume=0.5', tone]);
    const samples = await decodeMono(padded);
    const total = samples.length / 16000;
    const voice = await speechSpans(samples);
    expect(voice.length).toBeGreaterThan(0);
    expect(voice[0][0]).toBeGreaterThan(0.9);
    expect(voice[0][0]).toBeLessThan(1.3);
    expect(voice[voice.length - 1][1]).toBeLessThan(total - 0.8);
    const audible = audibleSpans(samples);
    expect(audible[0][0]).toBeGreaterThan(0.9);
    const toneSamples = await decodeMono(tone);
    expect(audibleSpans(toneSamples)).toEqual([[0, 2]]);
    expect(await speechSpans(toneSamples)).toEqual([]);
  });
});
