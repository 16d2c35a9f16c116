import { mixRgba, type RgbaPicture } from './mix-rgba';

const picture = (width: number, height: number, rgba: number[]): RgbaPicture => ({
  width,
  height,
  pixels: Buffer.from(Array.from({ length: width * height }, () => rgba).flat()),
});

describe('mixing pictures of a transparent layer', () => {
  it('mixes in premultiplied colour: a fading white stays white, its alpha scales', () => {
    const clear = picture(2, 1, [0, 0, 0, 0]);
    const white = picture(2, 1, [255, 255, 255, 255]);
    expect([...mixRgba([{ picture: clear, weight: 0.5 }, { picture: white, weight: 0.5 }]).pixels.subarray(0, 4)]).toEqual([255, 255, 255, 128]);
    // Half-transparent red over nothing, faded to 40 %: still red, alpha 0.4 · 128.
    const red = picture(2, 1, [255, 0, 0, 128]);
    expect([...mixRgba([{ picture: clear, weight: 0.6 }, { picture: red, weight: 0.4 }]).pixels.subarray(0, 4)]).toEqual([255, 0, 0, 51]);
    // Two opaque colours: the plain weighted mix.
    const blue = picture(2, 1, [0, 0, 200, 255]);
    expect([...mixRgba([{ picture: red, weight: 0 }, { picture: blue, weight: 0.25 }, { picture: white, weight: 0.75 }]).pixels.subarray(0, 4)]).toEqual([191, 191, 241, 255]);
    // Nothing drawn anywhere: transparent.
    expect([...mixRgba([{ picture: clear, weight: 1 }]).pixels]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });
});
