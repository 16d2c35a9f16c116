import { copyFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { compareFrames, PARITY_CHANNEL_THRESHOLD, PARITY_MAX_SHARE } from './corpus/compare';
import { CORPUS_SIZE, makeCorpusFixtures, parityCorpus, type CorpusEntry } from './corpus/corpus';
import { parityReport, probedMedia, serverStills, type FrameFigure, type PlayerParityRun } from './corpus/player-parity';
import { frameAt } from './helpers/media';
import { openPlayer } from './helpers/player';
import { withRenderApp } from './helpers/render-app';

/**
 * runPlayerParity's comparison with the two sides overlapped: the server draws every entry's stills
 * in turn while the Player page opens and captures the entries the server has finished, so one
 * browser's waits for paints and settling are spent on the other's drawing.
 */
async function overlappedPlayerParity(run: PlayerParityRun): Promise<FrameFigure[]> {
  const stem = (entry: CorpusEntry, frame: number) => path.join(run.outputs, `${entry.name}-${frame}`);
  const media = run.corpus.map((entry) => probedMedia(entry.request, run.fixtures, run.url));
  const server: Promise<void>[] = [];
  let previous: Promise<void> = Promise.resolve();
  for (const [index, entry] of run.corpus.entries()) {
    previous = previous.then(async () => serverStills(run.app, entry, await media[index], run.fixtures, (frame) => `${stem(entry, frame)}-server.png`));
    server.push(previous);
  }
  // Every promise is awaited below; until then a failure must not count as unhandled.
  server.forEach((drawn) => drawn.catch(() => undefined));
  const figures: FrameFigure[] = [];
  const first = run.corpus[0];
  try {
    const player = await openPlayer({ request: first.request, media: await media[0], transcripts: first.transcripts }, CORPUS_SIZE, run.browserExecutable);
    try {
      for (const [index, entry] of run.corpus.entries()) {
        const fps = entry.request.frame_rate as number;
        if (index > 0) await player.show({ request: entry.request, media: await media[index], transcripts: entry.transcripts });
        for (const frame of entry.frames) copyFileSync(await player.frame(frame), `${stem(entry, frame)}-player.png`);
        await server[index];
        for (const frame of entry.frames) {
          const difference = compareFrames(await frameAt(`${stem(entry, frame)}-server.png`), await frameAt(`${stem(entry, frame)}-player.png`), PARITY_CHANNEL_THRESHOLD, entry.ignore);
          const figure = { entry: entry.name, frame, seconds: frame / fps, ...difference, passes: difference.overShare <= PARITY_MAX_SHARE };
          figures.push(figure);
          run.onFigure?.(figure);
        }
      }
    } finally {
      await player.close();
    }
  } finally {
    await Promise.allSettled(server);
  }
  return figures;
}

/**
 * Issue 14, parity: every corpus request (every element type and feature, each shipped font) is
 * drawn on the server and in a browser <Player>; on every compared frame at most 1 % of pixels may
 * differ by more than 8/255 in a channel. With PARITY_REPORT set, the figures are also written
 * there (`npm run parity:report` → docs/parity.md).
 */
describe('preview = render parity (server stills vs the browser <Player>)', () => {
  const house = withRenderApp({
    name: 'parity',
    accounts: 0,
    fixtures: makeCorpusFixtures,
    keepOutputs: () => Boolean(process.env.PARITY_KEEP_FRAMES),
  });

  it('draws every corpus frame the same in the Player as on the server', async () => {
    const url = house.mediaUrl;
    const corpus = parityCorpus(url);
    const only = process.env.PARITY_ONLY?.split(',');
    const figures = await overlappedPlayerParity({
      app: house.app,
      corpus: only ? corpus.filter((entry) => only.includes(entry.name)) : corpus,
      fixtures: house.fixtures,
      url,
      outputs: house.outputs,
      browserExecutable: process.env.CHROMIUM_EXECUTABLE ?? path.join(__dirname, '../scripts/chromium-offline.sh'),
      onFigure: (f) => process.env.PARITY_VERBOSE && process.stdout.write(`${f.entry} frame ${f.frame}: ${(f.overShare * 100).toFixed(3)} % over, max ${f.maxDifference} ${JSON.stringify(f.where)}\n`),
    });
    if (process.env.PARITY_REPORT) writeFileSync(process.env.PARITY_REPORT, parityReport(corpus, figures, new Date().toISOString().slice(0, 10)));
    if (process.env.PARITY_KEEP_FRAMES) process.stdout.write(`frames kept in ${house.outputs}\n`);
    expect(figures.length).toBe(corpus.filter((entry) => !only || only.includes(entry.name)).reduce((sum, entry) => sum + entry.frames.length, 0));
    expect(figures.filter((f) => f.overShare > PARITY_MAX_SHARE).map((f) => `${f.entry} frame ${f.frame}: ${(f.overShare * 100).toFixed(2)} % of pixels over, max ${f.maxDifference}, in ${JSON.stringify(f.where)}`)).toEqual([]);
  }, 1_200_000);
});
