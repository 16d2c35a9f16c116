import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import puppeteer, { type Browser, type HTTPRequest } from 'puppeteer-core';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { FetchError, GuardedFetcher } from '../infra/http/guarded-fetcher';
import type { ExtractedBrand } from './brand-kit.repository';
import { analyzeBrand, PageObservations } from './brand-analysis';
import { PAGE_ANALYSIS_SCRIPT } from './page-analysis';

/** Bounds of one extraction: the whole page visit, and every byte the page loads together. */
export const EXTRACTION_LIMITS = { pageMs: 20_000, totalBytes: 20 * 1024 * 1024, viewport: { width: 1280, height: 800 } } as const;

/** Why an extraction failed, as the brand kit's `error.code`. */
export class ExtractionFailure extends Error {
  constructor(
    readonly code: 'source_refused' | 'source_unreachable' | 'source_http_status' | 'source_too_large' | 'page_timeout' | 'not_html',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Chromium can reach nothing by itself: a dead proxy for every scheme (loopback included) and no
 * name resolution, on top of the offline wrapper's rules. The only bytes a page gets are the ones
 * the interception handler fetched through the guarded fetcher and handed over.
 */
const HARDENING_ARGS = [
  '--proxy-server=http://127.0.0.1:9',
  '--proxy-bypass-list=<-loopback>',
  '--host-resolver-rules=MAP * ~NOTFOUND',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-extensions',
  '--disable-default-apps',
  '--no-first-run',
  '--no-pings',
  '--mute-audio',
  '--disable-dev-shm-usage',
  '--disable-features=Translate,MediaRouter,OptimizationHints',
];

/**
 * Loads a page in headless Chromium (Debian's, through scripts/chromium-offline.sh; never a
 * downloaded one) and reads its brand. Every request the page makes (document, CSS, fonts,
 * images, XHR) is intercepted and fetched by the GuardedFetcher, so the SSRF rules apply to the
 * resolved address of each connection and redirect; refused ones are aborted. Each page gets a
 * fresh browser context (no cookies, storage or cache shared, all dropped with it), downloads
 * denied, no permissions, response cookies never handed to the page.
 */
@Injectable()
export class BrandExtractorService implements OnApplicationShutdown {
  private readonly logger = new Logger('BrandExtractorService');
  private browser: Promise<Browser> | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly fetcher: GuardedFetcher,
  ) {}

  async extract(url: string): Promise<ExtractedBrand> {
    const browser = await this.openBrowser();
    const context = await browser.createBrowserContext({ downloadBehavior: { policy: 'deny' }, proxyServer: 'http://127.0.0.1:9', proxyBypassList: [] });
    const deadline = AbortSignal.timeout(EXTRACTION_LIMITS.pageMs);
    const budget = { left: EXTRACTION_LIMITS.totalBytes };
    try {
      const page = await context.newPage();
      // Popups are not intercepted: they are closed at once (and could not reach anything anyway).
      context.on('targetcreated', (target) => {
        void target.page().then((opened) => (opened && opened !== page ? opened.close() : undefined)).catch(() => undefined);
      });
      await page.setBypassServiceWorker(true);
      await page.setViewport(EXTRACTION_LIMITS.viewport);
      page.on('dialog', (dialog) => void dialog.dismiss().catch(() => undefined));
      await page.setRequestInterception(true);
      let documentFailure: ExtractionFailure | null = null;
      page.on('request', (request) => {
        void this.answer(request, budget, deadline).then((failure) => {
          if (failure && request.isNavigationRequest() && request.frame() === page.mainFrame()) documentFailure ??= failure;
        });
      });
      try {
        await page.goto(url, { waitUntil: 'load', timeout: EXTRACTION_LIMITS.pageMs, signal: deadline });
      } catch (error) {
        if (documentFailure) throw documentFailure;
        if (deadline.aborted) throw new ExtractionFailure('page_timeout', `The page did not load within ${EXTRACTION_LIMITS.pageMs / 1000} s`);
        throw new ExtractionFailure('source_unreachable', `The page could not be loaded: ${(error as Error).message.split('\n')[0]}`);
      }
      if (documentFailure) throw documentFailure;
      const observations = (await page.evaluate(PAGE_ANALYSIS_SCRIPT)) as PageObservations;
      return analyzeBrand(observations);
    } finally {
      await context.close().catch((error: Error) => this.logger.warn(`Could not close a browser context: ${error.message}`));
    }
  }

  /** Fetches one request through the guarded fetcher and hands the bytes to the page, or aborts it. */
  private async answer(request: HTTPRequest, budget: { left: number }, deadline: AbortSignal): Promise<ExtractionFailure | null> {
    const url = request.url();
    if (url.startsWith('data:')) {
      await request.continue().catch(() => undefined);
      return null;
    }
    const method = request.method();
    if (!/^https?:/i.test(url) || (method !== 'GET' && method !== 'HEAD')) {
      // Extraction reads; it never submits anything on the page's behalf.
      await request.abort('blockedbyclient').catch(() => undefined);
      return null;
    }
    try {
      const response = await this.fetcher.request(url, {
        method,
        headers: { accept: request.headers().accept ?? '*/*', 'user-agent': 'video-render-service brand-kit extractor' },
        maxBytes: Math.max(1, budget.left),
        connectTimeoutMs: 5_000,
        readTimeoutMs: 10_000,
        signal: deadline,
      });
      const chunks: Buffer[] = [];
      for await (const chunk of response.body) {
        budget.left -= (chunk as Buffer).length;
        if (budget.left < 0) {
          response.body.destroy();
          throw new FetchError('too_large', `The page and its resources pass ${EXTRACTION_LIMITS.totalBytes} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      const contentType = response.headers['content-type'];
      await request.respond({
        status: response.status,
        // Only the type: no cookies, no caching or security headers the page could lean on.
        headers: contentType ? { 'content-type': String(contentType) } : {},
        body: Buffer.concat(chunks),
      });
      if (request.isNavigationRequest() && (response.status < 200 || response.status > 299)) {
        return new ExtractionFailure('source_http_status', `The page answered HTTP ${response.status}`);
      }
      return null;
    } catch (error) {
      await request.abort(error instanceof FetchError && error.reason === 'forbidden_address' ? 'addressunreachable' : 'failed').catch(() => undefined);
      return toFailure(error);
    }
  }

  private openBrowser(): Promise<Browser> {
    this.browser ??= puppeteer
      .launch({
        executablePath: this.config.render.browserExecutable,
        headless: true,
        pipe: true,
        args: HARDENING_ARGS,
        // Puppeteer's defaults include flags for automation features this never uses.
        ignoreDefaultArgs: ['--enable-automation'],
      })
      .then((browser) => {
        browser.once('disconnected', () => (this.browser = null));
        return browser;
      })
      .catch((error: unknown) => {
        this.browser = null;
        throw error;
      });
    return this.browser;
  }

  async onApplicationShutdown(): Promise<void> {
    const browser = await this.browser?.catch(() => null);
    await browser?.close().catch(() => undefined);
  }
}

function toFailure(error: unknown): ExtractionFailure {
  if (error instanceof ExtractionFailure) return error;
  if (error instanceof FetchError) {
    if (error.reason === 'forbidden_address' || error.reason === 'invalid_url') return new ExtractionFailure('source_refused', error.message);
    if (error.reason === 'too_large') return new ExtractionFailure('source_too_large', error.message);
    if (error.reason === 'http_status') return new ExtractionFailure('source_http_status', error.message);
    return new ExtractionFailure('source_unreachable', error.message);
  }
  return new ExtractionFailure('source_unreachable', (error as Error).message);
}
