import { extensionOfName, extensionOfUrl } from './media-types';

describe('extensions', () => {
  it('takes a URL path extension, lower-cased, up to five characters; none for no extension, a long one or a bad URL', () => {
    expect(extensionOfUrl('https://cdn.example.com/a/Clip.MP4?sig=1#t')).toBe('.mp4');
    expect(extensionOfUrl('https://cdn.example.com/a/b.tar.gz')).toBe('.gz');
    expect(extensionOfUrl('https://cdn.example.com/clip')).toBe('');
    expect(extensionOfUrl('https://cdn.example.com/clip.toolong')).toBe('');
    expect(extensionOfUrl('https://cdn.example.com/clip.m-4')).toBe('');
    expect(extensionOfUrl('not a url.mp4')).toBe('');
  });

  it('takes a file name extension, lower-cased', () => {
    expect(extensionOfName('Song.WAV')).toBe('.wav');
    expect(extensionOfName('noext')).toBe('');
  });
});
