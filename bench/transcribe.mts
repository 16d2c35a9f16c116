// `npm run bench:transcribe`: how fast the offline recogniser (the built PocketsphinxEngine, open
// vocabulary) transcribes Debian's pocketsphinx-testdata recordings, one clip after another: wall
// time per clip (model load included, as each transcription starts pocketsphinx afresh), audio
// length, and the real-time factor (wall time over audio time) in all. Accuracy is a test
// (src/tasks/transcribe/engines/pocketsphinx.engine.spec.ts); speed is measured here.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
const root = path.resolve(import.meta.dirname, '..');
const { PocketsphinxEngine } = require(path.join(root, 'dist/src/tasks/transcribe/engines/pocketsphinx.engine.js'));

const DATA = '/usr/share/pocketsphinx/test/data';
const work = mkdtempSync(path.join(tmpdir(), 'bench-transcribe-'));
const goforward = path.join(work, 'goforward.wav');
execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 's16le', '-ar', '16000', '-ac', '1', '-i', path.join(DATA, 'goforward.raw'), goforward]);
const clips = [goforward];
for (const [folder, list] of [['cards', 'cards.transcription'], ['librivox', 'transcription']]) {
  for (const line of readFileSync(path.join(DATA, folder, list), 'utf8').split('\n')) {
    const id = /\((\S+)\)\s*$/.exec(line.trim())?.[1];
    if (id) clips.push(path.join(DATA, folder, `${id}.wav`));
  }
}

const engine = new PocketsphinxEngine({ grammarFile: null });
const rows: { clip: string; audio: number; wall: number }[] = [];
console.log(`load average at start: ${loadavg()[0].toFixed(2)}`);
for (const wav of clips) {
  const audio = Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', wav]).toString());
  const started = performance.now();
  await engine.transcribe({
    wavFile: wav, durationSeconds: audio, languageCode: null, speakerLabels: false, speakersExpected: null, punctuate: false,
    stagingKey: 'unused', signal: new AbortController().signal, onProgress: () => undefined,
  });
  rows.push({ clip: path.basename(wav), audio, wall: (performance.now() - started) / 1000 });
}
rmSync(work, { recursive: true, force: true });

const total = rows.reduce((sum, row) => ({ audio: sum.audio + row.audio, wall: sum.wall + row.wall }), { audio: 0, wall: 0 });
console.log('| clip                                          | audio s | wall s | real-time factor |');
console.log('|-----------------------------------------------|---------|--------|------------------|');
for (const row of [...rows, { clip: 'all', ...total }]) {
  console.log(`| ${row.clip.padEnd(45)} | ${row.audio.toFixed(1).padStart(7)} | ${row.wall.toFixed(2).padStart(6)} | ${(row.wall / row.audio).toFixed(2).padStart(16)} |`);
}
