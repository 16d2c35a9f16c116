import { STILL_JPEG_QUALITY } from '../planner/plan-render';
import { compositionOf } from '../browser/browser-host';
import type { PictureStrategy } from './strategy';

/**
 * One frame as the delivered image: on the worker's warm still tab (browser/warm-still-page.ts),
 * or with Remotion's renderStill when the plan says so or the tab is busy with another still.
 */
export const stillStrategy: PictureStrategy<'still'> = {
  name: 'still',
  async run({ args, browser: host, cancelSignal }, pictures) {
    const { renderStill } = await import('@remotion/renderer');
    const [serveUrl, browser] = await Promise.all([host.serveUrl(), host.openBrowser()]);
    const { plan: output } = args;
    if (output.kind !== 'still') throw new Error('the still strategy draws still outputs only');
    const inputProps = args.props as unknown as Record<string, unknown>;
    const composition = compositionOf(args.resolved, inputProps);
    const quality = output.imageFormat === 'jpeg' ? { jpegQuality: STILL_JPEG_QUALITY } : {};
    args.onProgress('compositing', 0);
    if (pictures.via === 'warm_page' && !host.warmStills.busy) {
      await host.warmStills.draw({
        browser,
        bundleDir: serveUrl,
        composition,
        frame: pictures.frame,
        scale: pictures.scale,
        imageFormat: output.imageFormat,
        ...quality,
        output: args.outputPath,
        signal: args.signal,
      });
      args.onProgress('encoding', 1);
      return { still_path: 'warm_page' };
    }
    await renderStill({
      composition,
      serveUrl,
      output: args.outputPath,
      frame: pictures.frame,
      scale: pictures.scale,
      imageFormat: output.imageFormat,
      ...quality,
      inputProps,
      puppeteerInstance: browser,
      browserExecutable: host.pageOptions(browser, cancelSignal, 1).browserExecutable,
      chromiumOptions: host.pageOptions(browser, cancelSignal, 1).chromiumOptions,
      cancelSignal,
      overwrite: true,
      logLevel: 'error',
    });
    args.onProgress('encoding', 1);
    return { still_path: 'render_still' };
  },
};
