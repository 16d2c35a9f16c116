import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { PARITY_MAX_SHARE } from './corpus/compare';
import { makeCorpusFixtures, parityCorpus } from './corpus/corpus';
import { parityReport, runPlayerParity } from './corpus/player-parity';
import { withRenderApp } from './helpers/render-app';

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
    const figures = await runPlayerParity({
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
