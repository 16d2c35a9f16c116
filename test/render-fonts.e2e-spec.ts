import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { glyphGrid, inkOf, inkOverlap, saturatedPixels } from './helpers/glyphs';
import { frameAt, type Frame } from './helpers/media';
import { openPlayer, type PlayerPage } from './helpers/player';
import { renderThroughApi } from './helpers/render-through-api';
import { signupVerified, startTestApp, TestApp } from './helpers/test-app';

const BROWSER = process.env.CHROMIUM_EXECUTABLE ?? path.join(__dirname, '../scripts/chromium-offline.sh');
const CELL = 36;

/**
 * Issue 35, text as people write it: every script and colour emoji draw real glyphs (never the
 * missing-glyph box) on the server and in the browser Player.
 */
describe('fonts and text (through the REST API and the Player)', () => {
  let app: TestApp;
  let key: string;
  let player: PlayerPage | undefined;
  const outputs = mkdtempSync(path.join(tmpdir(), 'vrs-fonts-outputs-'));

  beforeAll(async () => {
    app = await startTestApp({ env: { ALLOW_PRIVATE_NETWORK: 'true' } });
    ({ key } = await signupVerified(app));
  }, 180_000);

  afterAll(async () => {
    await player?.close();
    await app?.close();
    rmSync(outputs, { recursive: true, force: true });
  });

  /** Shows `request` in the browser Player (one page for the file) and returns its first frame. */
  const playerFrame = async (request: Record<string, unknown>, size: { width: number; height: number }): Promise<Frame> => {
    const props = { request, media: {} };
    if (player) await player.show(props);
    else player = await openPlayer(props, size, BROWSER);
    return frameAt(await player.frame(0));
  };

  it('draws every script and colour emoji with real glyphs, on the server and in the Player', async () => {
    const glyphs = [
      ['Latin', 'A'], ['Latin', 'é'], ['Greek', 'Ω'], ['Greek', 'λ'], ['Cyrillic', 'Ж'], ['Cyrillic', 'д'],
      ['Arabic', 'ض'], ['Arabic', 'ع'], ['Hebrew', 'ש'], ['Hebrew', 'א'], ['Devanagari', 'क'], ['Devanagari', 'ष'],
      ['Thai', 'ก'], ['Thai', 'ข'], ['Chinese', '汉'], ['Chinese', '语'], ['Japanese', 'あ'], ['Japanese', 'カ'],
      ['Korean', '한'], ['Korean', '글'],
    ].map(([label, text]) => ({ label, text }));
    const emoji = [
      ['emoji', '😀'], ['emoji skin tone', '👍🏽'], ['emoji flag', '🇯🇵'], ['emoji ZWJ sequence', '👩‍🚀'], ['emoji with VS16', '❤️'],
    ].map(([label, text]) => ({ label, text }));
    // Characters of scripts no font here covers: what a missing glyph draws (a box, or nothing in headless Chromium).
    const missing = [{ label: 'missing (Ethiopic)', text: 'ሀ' }, { label: 'missing (Tibetan)', text: 'ཀ' }];
    const cells = glyphGrid([...glyphs, ...emoji, ...missing], 9, CELL);
    const request = {
      width: 9 * CELL,
      height: 4 * CELL,
      output_format: 'png',
      background_color: '#000000',
      elements: cells.map((cell) => ({ type: 'text', text: cell.text, x: cell.x, y: cell.y, font_size: 24, fill_color: '#ffffff' })),
    };
    const { file } = await renderThroughApi(app, key, outputs, 'scripts', request);
    if (process.env.FONTS_KEEP) copyFileSync(file, path.join(process.env.FONTS_KEEP, 'scripts.png'));
    const frames = { server: await frameAt(file), player: await playerFrame(request, { width: request.width, height: request.height }) };

    for (const [side, frame] of Object.entries(frames)) {
      const boxes = cells.slice(-missing.length).map((cell) => inkOf(frame, cell, CELL));
      // Both references draw the same picture: the missing glyph, whatever the renderer makes of it.
      expect({ side, same: inkOverlap(boxes[0], boxes[1]) > 0.8 }).toEqual({ side, same: true });
      const tofu = cells.slice(0, glyphs.length + emoji.length).flatMap((cell) => {
        const ink = inkOf(frame, cell, CELL);
        const lit = ink.filter(Boolean).length;
        const likeBox = Math.max(...boxes.map((box) => inkOverlap(ink, box)));
        return lit < 10 || likeBox > 0.6 ? [`${side}: ${cell.label} ${cell.text} (ink ${lit} px, ${(likeBox * 100).toFixed(0)} % like the box)`] : [];
      });
      expect(tofu).toEqual([]);
      const monochrome = cells
        .slice(glyphs.length, glyphs.length + emoji.length)
        .filter((cell) => saturatedPixels(frame, cell, CELL) < 30)
        .map((cell) => `${side}: ${cell.label} ${cell.text} has ${saturatedPixels(frame, cell, CELL)} saturated px`);
      expect(monochrome).toEqual([]);
    }
  }, 240_000);
});
