/**
 * Remotion's screenshots (renderMedia, renderFrames, takeFrame) ask Chromium for
 * `captureBeyondViewport: true` with a clip of exactly the viewport it set. Chromium honours that
 * by resizing the page to the clip and back around every screenshot: two layouts and a repaint and
 * re-raster of the whole page each frame, where only what moved needs drawing. The clip never
 * leaves the viewport, so the picture is the same without it (record 0109); each of this
 * browser's CDP messages is looked at on its way out and such screenshots are sent without it.
 */
export function screenshotsWithinViewport(browser: unknown): void {
  const connection = (browser as { connection?: RawConnection }).connection;
  if (!connection || typeof connection._rawSend !== 'function' || PATCHED.has(connection)) return;
  const rawSend = connection._rawSend.bind(connection);
  connection._rawSend = (message) => rawSend(withinViewport(message));
  PATCHED.add(connection);
}

interface CdpMessage {
  method: string;
  params?: Record<string, unknown>;
  sessionId?: string;
}

interface RawConnection {
  _rawSend(message: CdpMessage): number;
}

const PATCHED = new WeakSet<RawConnection>();

/** A `Page.captureScreenshot` whose clip starts at the page's corner, without `captureBeyondViewport`; other messages as they are. */
export function withinViewport(message: CdpMessage): CdpMessage {
  if (message.method !== 'Page.captureScreenshot' || message.params?.captureBeyondViewport !== true) return message;
  const clip = message.params.clip as { x?: number; y?: number } | undefined;
  // Remotion's clip is its viewport from the corner (its fromSurface capture); anything else is left alone.
  if (clip && (clip.x !== 0 || clip.y !== 0)) return message;
  if (message.params.fromSurface !== true) return message;
  return { ...message, params: { ...message.params, captureBeyondViewport: false } };
}
