import { copyFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fakeRegistry, renamedFont } from './helpers/font-registry';
import { glyphGrid, inkOf, inkOverlap, inkRuns, saturatedPixels } from './helpers/glyphs';
import { frameAt, waitFor, type FolderServer, type Frame } from './helpers/media';
import { openPlayer, type PlayerPage } from './helpers/player';
import { renderThroughApi } from './helpers/render-through-api';
import { withRenderApp } from './helpers/render-app';
import { bearer, type TestApp } from './helpers/test-app';

const BROWSER = process.env.CHROMIUM_EXECUTABLE ?? path.join(__dirname, '../scripts/chromium-offline.sh');
const CELL = 36;
/** Room for the stand-in's Lobster (about 22 KB) alone, not with Pacifico (about 12 KB) beside it. */
const FONT_CACHE_BYTES = 30_000;

/**
 * Issue 35, text as people write it: every script and colour emoji draw real glyphs (never the
 * missing-glyph box) on the server and in the browser Player.
 */
describe('fonts and text (through the REST API and the Player)', () => {
  let player: PlayerPage | undefined;
  let registry: Awaited<ReturnType<typeof fakeRegistry>>;
  const house = withRenderApp({
    name: 'fonts',
    env: () => ({ FONT_REGISTRY_URL: registry.url, FONT_CACHE_MAX_BYTES: String(FONT_CACHE_BYTES) }),
    fixtures: async (dir) => {
      registry = await fakeRegistry(dir);
      copyFileSync('/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf', path.join(dir, 'brand.ttf'));
      writeFileSync(path.join(dir, 'unnamed.ttf'), renamedFont('/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf', 'DejaVu Serif', 'Zebra Custom'));
      writeFileSync(path.join(dir, 'picture.ttf'), Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(256)]));
    },
  });
  // The names the tests below use.
  let app: TestApp;
  let key: string;
  let served: FolderServer;
  let outputs: string;
  beforeAll(() => {
    ({ app, key, media: served, outputs } = house);
  });

  afterAll(async () => {
    await player?.close();
    await registry?.close();
  });

  /** Shows `request` in the browser Player (one page for the file) and returns its first frame. */
  const playerFrame = async (request: Record<string, unknown>, size: { width: number; height: number }, fontFaces?: unknown[]): Promise<Frame> => {
    const props = { request, media: {}, ...(fontFaces ? { fontFaces } : {}) };
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
    // Characters of scripts no installed font covers (Toto, Kawi: newer than fonts-noto-core): what a
    // missing glyph draws (a box, or nothing in headless Chromium).
    const missing = [{ label: 'missing (Toto)', text: '\u{1e290}' }, { label: 'missing (Kawi)', text: '\u{11f04}' }];
    const cells = glyphGrid([...glyphs, ...emoji, ...missing], 9, CELL);
    // Right-to-left lines below the grid, each a lone letter then a wide run of Latin or digits: read
    // right to left, the letter stands at the right end (left to right it would stand at the left).
    const rtl = [
      { label: 'Hebrew then Latin', text: 'ש WWWWW' },
      { label: 'Arabic then Latin', text: 'ع WWWWW' },
      { label: 'Hebrew then digits', text: 'ש 123456' },
    ].map((line, index) => ({ ...line, y: (4 + index) * CELL + CELL / 2 }));
    const request = {
      width: 9 * CELL,
      height: 7 * CELL,
      output_format: 'png',
      background_color: '#000000',
      elements: [
        ...cells.map((cell) => ({ type: 'text', text: cell.text, x: cell.x, y: cell.y, font_size: 24, fill_color: '#ffffff' })),
        ...rtl.map((line) => ({ type: 'text', text: line.text, x: (9 * CELL) / 2, y: line.y, font_size: 24, fill_color: '#ffffff' })),
      ],
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
      const misordered = rtl.flatMap((line) => {
        const words = inkRuns(frame, { top: line.y - CELL / 2, bottom: line.y + CELL / 2, width: request.width }, 4);
        const widths = words.map((word) => word.end - word.start + 1);
        // Two words, the lone letter (the narrower) on the right.
        return words.length === 2 && widths[1] < widths[0] ? [] : [`${side}: ${line.label} "${line.text}" drawn as words ${JSON.stringify(widths)} from the left`];
      });
      expect(misordered).toEqual([]);
    }
  }, 240_000);

  it('fits a short and a long text into the same box size, the long one smaller; same in the Player; the dry run reports the sizes', async () => {
    const box = { width: 140, height: 70 };
    const long = 'Everything in the store is half price until Sunday evening, online and in shops';
    const fitted = (text: string, x: number) => ({ type: 'text', text, x, y: 20, x_anchor: '0%', y_anchor: '0%', ...box, font_size: 'auto', max_font_size: 60, fill_color: '#ffffff' });
    const request = {
      width: 320,
      height: 110,
      output_format: 'png',
      background_color: '#000000',
      elements: [fitted('Sale', 10), fitted(long, 170), { type: 'text', text: long, x: 10, y: 95, x_anchor: '0%', y_anchor: '0%', width: 60, height: 10, font_size: 'auto', min_font_size: 12 }],
    };
    const dry = await app.http.post('/v1/preview').set(bearer(key)).send({ ...request, preview: { mode: 'dry_run' } }).expect(200);
    const [shortSize, longSize] = dry.body.timeline.elements.slice(0, 2).map((element: { font_size: number }) => element.font_size);
    expect(shortSize).toBeGreaterThan(longSize);
    expect(dry.body.violations.filter((v: { code: string }) => v.code === 'TEXT_OVERFLOWS_AT_MIN_SIZE').map((v: { pointer: string }) => v.pointer)).toEqual(['/elements/2/font_size']);

    const withoutOverflow = { ...request, elements: request.elements.slice(0, 2) };
    const { file } = await renderThroughApi(app, key, outputs, 'fitted', withoutOverflow);
    if (process.env.FONTS_KEEP) copyFileSync(file, path.join(process.env.FONTS_KEEP, 'fitted.png'));
    const frames = { server: await frameAt(file), player: await playerFrame(withoutOverflow, { width: request.width, height: request.height }) };
    const lineHeights: Record<string, number[]> = {};
    for (const [side, frame] of Object.entries(frames)) {
      const boxes = [10, 170].map((left) => ({ left, top: 20, right: left + box.width, bottom: 20 + box.height }));
      // No ink outside the two boxes.
      const outside: string[] = [];
      for (let y = 0; y < frame.height; y += 1) {
        for (let x = 0; x < frame.width; x += 1) {
          const inside = boxes.some((b) => x >= b.left - 1 && x <= b.right + 1 && y >= b.top - 1 && y <= b.bottom + 1);
          if (!inside && Math.max(...frame.at(x, y)) > 96) outside.push(`${x},${y}`);
        }
      }
      expect({ side, outside: outside.slice(0, 5) }).toEqual({ side, outside: [] });
      // The height of the first line of ink in each box: the glyph size drawn.
      lineHeights[side] = boxes.map((b) => {
        const inked = (y: number) => Array.from({ length: box.width }, (_, i) => Math.max(...frame.at(b.left + i, y)) > 96).some(Boolean);
        let y = b.top;
        while (y < b.bottom && !inked(y)) y += 1;
        const start = y;
        while (y < b.bottom && inked(y)) y += 1;
        return y - start;
      });
      expect({ side, bothDrawn: lineHeights[side].every((h) => h > 3) }).toEqual({ side, bothDrawn: true });
      expect({ side, longSmaller: lineHeights[side][1] < lineHeights[side][0] * 0.7 }).toEqual({ side, longSmaller: true });
    }
    expect(lineHeights.player).toEqual(lineHeights.server);
  }, 240_000);

  it('draws a Google Fonts family fetched once from the registry; the dry run says what it fetches; an unknown family is 422 with a suggestion', async () => {
    const line = (text: string, y: number, family: string) => ({ type: 'text', text, x: 10, y, x_anchor: '0%', y_anchor: '0%', font_size: 26, font_family: family, fill_color: '#ffffff' });
    const request = {
      width: 320,
      height: 120,
      output_format: 'png',
      background_color: '#000000',
      // The stand-in's "Lobster" is Playfair Display's file: its line must match that one, and not Inter's.
      elements: [line('Quartz glyph', 5, 'Lobster'), line('Quartz glyph', 45, 'Playfair Display'), line('Quartz glyph', 85, 'Inter')],
    };
    const dry = async () => (await app.http.post('/v1/preview').set(bearer(key)).send({ ...request, preview: { mode: 'dry_run' } }).expect(200)).body;
    expect((await dry()).fonts_to_fetch).toEqual(['Lobster']);

    const { file } = await renderThroughApi(app, key, outputs, 'catalogue', request);
    // The Player gets the same faces from the service (GET /v1/fonts/{family}), fetched already.
    const faces = (await app.http.get('/v1/fonts/Lobster').set(bearer(key)).expect(200)).body;
    expect(faces).toMatchObject({ family: 'Lobster', source: 'catalogue', faces: [{ family: 'Lobster', weight: '400', style: 'normal' }] });
    const frames = { server: await frameAt(file), player: await playerFrame(request, { width: request.width, height: request.height }, faces.faces) };
    for (const [side, frame] of Object.entries(frames)) {
      const band = (top: number) => inkOf(frame, { x: 160, y: top + 20 }, 40).concat(inkOf(frame, { x: 120, y: top + 20 }, 40));
      expect({ side, inked: band(5).filter(Boolean).length > 100 }).toEqual({ side, inked: true });
      expect({ side, likePlayfair: inkOverlap(band(5), band(45)) > 0.9, unlikeInter: inkOverlap(band(5), band(85)) < 0.6 }).toEqual({ side, likePlayfair: true, unlikeInter: true });
    }
    expect(registry.hits('lobster')).toEqual({ packument: 1, tarball: 1 });
    expect((await app.http.get('/v1/fonts/Lobstr').set(bearer(key)).expect(404)).body.error.details).toEqual({ suggestion: 'Lobster' });

    // Cached: the next render and dry run never ask the registry.
    expect((await dry()).fonts_to_fetch).toEqual([]);
    await renderThroughApi(app, key, outputs, 'catalogue-again', { ...request, elements: request.elements.slice(0, 1) });
    expect(registry.hits('lobster')).toEqual({ packument: 1, tarball: 1 });

    // A family the registry does not have: the render fails before drawing, with a code and the family named.
    const missing = await app.http.post('/v1/renders').set(bearer(key)).send({ ...request, elements: [line('Hi', 5, 'Roboto Slab')] }).expect(202);
    const failed = await waitFor(
      async () => (await app.http.get(`/v1/renders/${missing.body.id}`).set(bearer(key)).expect(200)).body,
      (job) => ['completed', 'failed'].includes(job.status),
    );
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'source_not_found', message: expect.stringContaining('Roboto Slab') } });

    const unknown = await app.http.post('/v1/renders').set(bearer(key)).send({ ...request, elements: [line('Hi', 5, 'Lobstr')] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details.errors[0]).toMatchObject({ pointer: '/elements/0/font_family', suggestion: 'Lobster' });
    expect(unknown.body.error.details.errors[0].msg.match(/did you mean/g)).toHaveLength(1);
  }, 240_000);

  it('draws custom font files of the request (named, or by the name inside the file) on the server and in the Player; a renamed picture is 422 at its pointer', async () => {
    const line = (text: string, y: number, family: string) => ({ type: 'text', text, x: 10, y, x_anchor: '0%', y_anchor: '0%', font_size: 26, font_family: family, fill_color: '#ffffff' });
    const request = {
      width: 320,
      height: 120,
      output_format: 'png',
      background_color: '#000000',
      fonts: [{ family: 'Brand Serif', source_url: `${served.url}/brand.ttf` }],
      elements: [line('Quartz glyph', 5, 'Brand Serif'), line('Quartz glyph', 45, 'Inter')],
    };
    const { file } = await renderThroughApi(app, key, outputs, 'custom', request);
    const frames = { server: await frameAt(file), player: await playerFrame(request, { width: request.width, height: request.height }) };
    const band = (frame: Frame, top: number) => inkOf(frame, { x: 160, y: top + 20 }, 40).concat(inkOf(frame, { x: 120, y: top + 20 }, 40));
    for (const [side, frame] of Object.entries(frames)) {
      expect({ side, inked: band(frame, 5).filter(Boolean).length > 100 }).toEqual({ side, inked: true });
      expect({ side, unlikeFallback: inkOverlap(band(frame, 5), band(frame, 45)) < 0.6 }).toEqual({ side, unlikeFallback: true });
    }
    expect(inkOverlap(band(frames.server, 5), band(frames.player, 5))).toBeGreaterThan(0.9);

    // Without a family, the name inside the file is the family text elements use (no other font has it).
    const unnamed = { ...request, fonts: [{ source_url: `${served.url}/unnamed.ttf` }], elements: [line('Quartz glyph', 5, 'Zebra Custom'), line('Quartz glyph', 45, 'Inter')] };
    const drawn = await frameAt((await renderThroughApi(app, key, outputs, 'unnamed', unnamed)).file);
    expect(inkOverlap(band(drawn, 5), band(drawn, 45))).toBeLessThan(0.6);

    const picture = await app.http.post('/v1/renders').set(bearer(key)).send({ ...request, fonts: [{ family: 'Brand Serif', source_url: `${served.url}/picture.ttf` }] });
    expect(picture.status).toBe(422);
    expect(picture.body.error).toMatchObject({ code: 'invalid_source', details: { pointer: '/fonts/0/source_url' } });
  }, 240_000);

  it('keeps the font cache under its bound, evicting the least recently used family', async () => {
    const one = (family: string) => ({ width: 160, height: 60, output_format: 'png', elements: [{ type: 'text', text: 'Cache', font_family: family, font_size: 30 }] });
    const toFetch = async (family: string) => (await app.http.post('/v1/preview').set(bearer(key)).send({ ...one(family), preview: { mode: 'dry_run' } }).expect(200)).body.fonts_to_fetch;
    await renderThroughApi(app, key, outputs, 'lobster', one('Lobster'));
    expect(await toFetch('Lobster')).toEqual([]);
    // Pacifico beside Lobster is over the bound: Lobster, used least recently, goes.
    await renderThroughApi(app, key, outputs, 'pacifico', one('Pacifico'));
    expect(await toFetch('Pacifico')).toEqual([]);
    expect(await toFetch('Lobster')).toEqual(['Lobster']);
    const fetched = registry.hits('lobster').tarball;
    await renderThroughApi(app, key, outputs, 'lobster-again', one('Lobster'));
    expect(registry.hits('lobster').tarball).toBe(fetched + 1);
  }, 240_000);
});
