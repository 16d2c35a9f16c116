import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody } from './api-error';

/** What Node's HTTP parser refused, as the answer it would give itself, with the envelope as body. */
function answerFor(error: NodeJS.ErrnoException): { status: number; reason: string; message: string } {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, reason: 'Request Header Fields Too Large', message: 'The request headers are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, reason: 'Request Timeout', message: 'The request did not arrive in time' };
    default:
      return { status: 400, reason: 'Bad Request', message: 'The request is not valid HTTP/1.1' };
  }
}

/**
 * Requests Node refuses before any route runs (headers over the size limit, a malformed request
 * line, bad header characters) are answered by Node with a bare status line; this handler sends the
 * same status with the spec's error envelope, then closes the connection as Node does.
 */
export function answerClientErrorsWithEnvelope(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Nothing to answer on a connection that is gone or already half-answered.
    if (error.code === 'ECONNRESET' || !socket.writable || (socket as Duplex & { _httpMessage?: unknown })._httpMessage) {
      socket.destroy();
      return;
    }
    const { status, reason, message } = answerFor(error);
    const body = JSON.stringify(errorBody('invalid_request', message));
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
