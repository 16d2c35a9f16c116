import { readFileSync } from 'node:fs';
import { readFontFile } from './font-file';

describe('readFontFile', () => {
  it('reads the format and family of WOFF2, WOFF and TrueType files', () => {
    expect(readFontFile(readFileSync(require.resolve('@fontsource/lato/files/lato-latin-400-normal.woff2')))).toEqual({ format: 'woff2', family: 'Lato' });
    expect(readFontFile(readFileSync(require.resolve('@fontsource/lato/files/lato-latin-400-normal.woff')))).toEqual({ format: 'woff', family: 'Lato' });
    expect(readFontFile(readFileSync('/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf'))).toEqual({ format: 'truetype', family: 'DejaVu Sans' });
  });

  it('refuses a file that is not a font', () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64)]);
    expect(() => readFontFile(png)).toThrow(/not a TrueType, OpenType, WOFF or WOFF2 font/);
    const woff2 = readFileSync(require.resolve('@fontsource/lato/files/lato-latin-400-normal.woff2'));
    expect(() => readFontFile(woff2.subarray(0, 200))).toThrow(/another length/);
  });
});
