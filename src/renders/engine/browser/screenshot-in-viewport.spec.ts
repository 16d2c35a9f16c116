import { screenshotsWithinViewport, withinViewport } from './screenshot-in-viewport';

const remotionShot = (clip: object, fromSurface = true) => ({
  method: 'Page.captureScreenshot',
  sessionId: 's1',
  params: { format: 'jpeg', quality: 90, clip, captureBeyondViewport: true, optimizeForSpeed: true, fromSurface },
});

describe('screenshots within the viewport', () => {
  it("sends Remotion's viewport screenshot without captureBeyondViewport, everything else kept", () => {
    const sent = withinViewport(remotionShot({ x: 0, y: 0, width: 1920, height: 1080, scale: 1 }));
    expect(sent).toEqual({ ...remotionShot({ x: 0, y: 0, width: 1920, height: 1080, scale: 1 }), params: { ...remotionShot({ x: 0, y: 0, width: 1920, height: 1080, scale: 1 }).params, captureBeyondViewport: false } });
  });

  it('leaves other messages and other screenshots as they are', () => {
    const other = { method: 'Runtime.evaluate', params: { expression: '1' } };
    expect(withinViewport(other)).toBe(other);
    const offset = remotionShot({ x: 10, y: 0, width: 100, height: 100, scale: 1 });
    expect(withinViewport(offset)).toBe(offset);
    const notFromSurface = remotionShot({ x: 0, y: 0, width: 3840, height: 2160, scale: 1 }, false);
    expect(withinViewport(notFromSurface)).toBe(notFromSurface);
  });

  it("rewrites what the browser's connection sends, once however often it is applied", () => {
    const sent: unknown[] = [];
    const browser = { connection: { _rawSend: (message: unknown) => sent.push(message) } };
    screenshotsWithinViewport(browser);
    screenshotsWithinViewport(browser);
    browser.connection._rawSend(remotionShot({ x: 0, y: 0, width: 640, height: 360, scale: 1 }));
    expect(sent).toHaveLength(1);
    expect((sent[0] as { params: { captureBeyondViewport: boolean } }).params.captureBeyondViewport).toBe(false);
  });
});
