import { assertStorageKey, attachmentDisposition, storageKeyProblem } from './storage';

describe('storage keys', () => {
  it.each(['ws_123/renders/render_abc.mp4', 'a', 'ws_1/uploads/asset_01J.tar.gz', 'x-y_z/0.9'])('accepts %s', (key) => {
    expect(storageKeyProblem(key)).toBeNull();
  });

  it.each([
    ['', 'empty'],
    ['/ws_1/a.mp4', 'absolute'],
    ['ws_1/../etc/passwd', 'parent segment'],
    ['..', 'parent segment alone'],
    ['ws_1/./a.mp4', 'current-folder segment'],
    ['ws_1//a.mp4', 'empty segment'],
    ['ws_1/a.mp4/', 'trailing slash'],
    ['ws_1\\a.mp4', 'backslash'],
    ['ws_1/.meta/a.json', 'hidden segment'],
    ['ws_1/a b.mp4', 'space'],
    ['ws_1/a%2F.mp4', 'percent'],
    ['ws_1/a\n.mp4', 'control character'],
    ['ws_1/ä.mp4', 'non-ASCII'],
    ['a'.repeat(1025), 'too long'],
  ])('rejects %j (%s)', (key) => {
    expect(storageKeyProblem(key)).not.toBeNull();
    expect(() => assertStorageKey(key)).toThrow(/Invalid storage key/);
  });
});

describe('attachmentDisposition', () => {
  it('quotes a plain name', () => {
    expect(attachmentDisposition('clip 1.mp4')).toBe('attachment; filename="clip 1.mp4"');
  });

  it('adds an RFC 5987 name when the plain one had to be degraded', () => {
    expect(attachmentDisposition('résumé "final".mp4')).toBe(
      `attachment; filename="r_sum_ _final_.mp4"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22.mp4`,
    );
  });
});
