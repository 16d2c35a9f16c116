import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { Controller, Get, HttpCode, Inject, Param, Put, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../../common/auth/decorators';
import { isStorageFull } from '../../common/errors/storage-full';
import { storageUnavailableOf } from '../../common/errors/storage-unavailable';
import { ApiError } from '../../common/errors/api-error';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { FILES_ROUTE_PREFIX, LocalStorage } from './local-storage';
import { attachmentDisposition, ObjectTooLargeError, servedDisposition, servedInline, Storage, storageKeyProblem } from './storage';
import type { FileGrant } from './url-signer';
import { UploadEventsService } from './upload-events.service';

const FILES_ROUTE = new RegExp(`^${FILES_ROUTE_PREFIX.replace(/\//g, '\\/')}`, 'i');

/** Express matches routes case-insensitively; so must anything that needs to recognise this one. */
export function isFilesRoute(req: IncomingMessage): boolean {
  return FILES_ROUTE.test(req.url ?? '');
}

/**
 * Local storage's signed URLs (storage.ts). Anyone holding one may read (GET, HEAD, with Range) or
 * upload (PUT) that one file until it expires; the signature covers the method, key, expiry, the
 * download name and the upload's Content-Type. With GCS the URLs point at Google and this route
 * answers 404 like any unknown route. Not in the OpenAPI document: clients only follow the URLs
 * the API hands out.
 */
@ApiExcludeController()
@Public()
@Controller('v1/files')
export class FilesController {
  constructor(
    private readonly storage: Storage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly uploadEvents: UploadEventsService,
  ) {}

  /** Express answers HEAD through the GET route, with the headers and without the body. */
  @Get('*key')
  async download(@Param('key') segments: string[], @Req() req: Request, @Res() res: Response): Promise<void> {
    const storage = this.localStorage(req);
    const key = segments.join('/');
    const downloadFilename = queryValue(req, 'filename');
    const expires = this.authorize(storage, req, { method: 'GET', key, downloadFilename });
    const object = storageKeyProblem(key) ? null : await storage.stat(key);
    if (!object) throw ApiError.notFound('File');

    // Stored bytes are the uploader's: the browser must take the stored type at its word (nosniff),
    // show only media inline, and run nothing else on this origin (attachment, CSP sandbox).
    res.setHeader('Content-Type', object.contentType ?? 'application/octet-stream');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader(
      'Content-Disposition',
      downloadFilename !== undefined ? attachmentDisposition(downloadFilename) : servedDisposition(key, object.contentType),
    );
    if (!servedInline(object.contentType)) res.setHeader('Content-Security-Policy', 'sandbox');
    // Browsers fetch fonts in CORS mode (a Player's FontFace on another origin); a signed URL is the capability.
    if (object.contentType?.startsWith('font/')) res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cache-Control', `private, max-age=${Math.max(0, expires - nowSeconds())}`);
    // An unsatisfiable range gets the whole file (RFC 9110 lets a server ignore Range), since the
    // error table has no 416.
    const rangeSatisfiable = req.headers.range === undefined || req.range(object.size) !== -1;
    const options = { root: storage.root, acceptRanges: rangeSatisfiable, cacheControl: false, dotfiles: 'deny' as const };
    await new Promise<void>((resolve, reject) => {
      res.sendFile(key, options, (error?: NodeJS.ErrnoException & { status?: number }) => {
        // A client that hangs up mid-download is no failure of ours.
        if (!error || error.code === 'ECONNABORTED' || error.syscall === 'write') resolve();
        else if (error.status === 404) reject(ApiError.notFound('File'));
        else reject(error);
      });
    });
  }

  @Put('*key')
  @HttpCode(200)
  async upload(@Param('key') segments: string[], @Req() req: Request): Promise<{ key: string; size: number }> {
    const storage = this.localStorage(req);
    const key = segments.join('/');
    const contentType = queryValue(req, 'content_type') ?? '';
    this.authorize(storage, req, { method: 'PUT', key, contentType });
    if (storageKeyProblem(key)) throw ApiError.notFound('File');
    const sent = req.headers['content-type'];
    if (normalizeContentType(sent) !== normalizeContentType(contentType)) {
      throw ApiError.validation([
        {
          type: 'literal_error',
          loc: ['header', 'content-type'],
          msg: `Content-Type must be ${contentType}, the type this upload URL was signed for (got ${sent ?? 'none'})`,
          pointer: '',
        },
      ]);
    }
    const limit = this.config.storage.uploadMaxBytes;
    if (Number(req.headers['content-length']) > limit) throw tooLarge(limit);
    let size: number;
    try {
      ({ size } = await storage.putStream(key, detachableBody(req), contentType, { maxBytes: limit }));
    } catch (error) {
      if (error instanceof ObjectTooLargeError) {
        // Read and discard the rest, as Node does for bodies nobody reads: closing the connection
        // mid-upload would reset it, and the client would never see the 413.
        req.resume();
        throw tooLarge(limit);
      }
      if (isStorageFull(error) || storageUnavailableOf(error)) {
        req.resume(); // as for 413: the client reads the 503 once its body is drained
        throw error;
      }
      if (!req.complete) throw new ApiError('invalid_request', 'The upload ended before the whole body arrived');
      throw error;
    }
    await this.uploadEvents.uploaded(key);
    return { key, size };
  }

  private localStorage(req: Request): LocalStorage {
    if (this.storage instanceof LocalStorage) return this.storage;
    throw new ApiError('not_found', `No route ${req.method} ${req.path}`);
  }

  /** Checks the signature, then the expiry; returns the expiry (unix seconds). */
  private authorize(storage: LocalStorage, req: Request, grant: Omit<FileGrant, 'expires'>): number {
    const expires = Number(queryValue(req, 'expires'));
    const signature = queryValue(req, 'signature');
    if (!signature || !Number.isSafeInteger(expires)) {
      throw new ApiError('forbidden', 'This file URL is not signed; use the URL exactly as the API returned it');
    }
    if (!storage.verifyGrant({ ...grant, expires }, signature)) {
      throw new ApiError('forbidden', 'The file URL signature does not match; use the URL exactly as the API returned it');
    }
    if (nowSeconds() > expires) {
      const expiredAt = new Date(expires * 1000).toISOString();
      throw new ApiError('forbidden', `The file URL expired at ${expiredAt}; ask the API for a new one`, { expired_at: expiredAt });
    }
    return expires;
  }
}

function queryValue(req: Request, name: string): string | undefined {
  const value = req.query[name];
  return typeof value === 'string' ? value : undefined;
}

function normalizeContentType(value: string | undefined): string {
  return (value ?? '').trim().toLowerCase();
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function tooLarge(limit: number): ApiError {
  return new ApiError('payload_too_large', `The upload exceeds the limit of ${limit} bytes`, { limit_bytes: limit });
}

/**
 * The request body as a stream the storage may abandon (and destroy) without destroying the
 * request itself, whose socket must stay open for the error response.
 */
function detachableBody(req: Request): PassThrough {
  const body = new PassThrough();
  // The storage may have stopped reading (and stopped listening) before the client goes away;
  // a late error must not become an unhandled 'error' event that brings the process down.
  body.on('error', () => undefined);
  req.on('error', (error) => body.destroy(error));
  req.once('close', () => {
    if (!req.complete) body.destroy(new Error('The client closed the connection during the upload'));
  });
  req.pipe(body);
  return body;
}
