import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/**
 * The MCP SDK runs a notification's handler a microtask after it reads it, but a response's at
 * once: when a tool's last progress notification and its result arrive in one read (one stdio or
 * SSE chunk), the result closes the call first and the client drops that progress as belonging to
 * no open call. The service and the bridge send the final progress before the result; a test that
 * checks this delivers each response a macrotask later, so it sees the order they were sent in
 * rather than how the bytes happened to be chunked.
 */
export function deliverResponsesAfterNotifications(client: Client): void {
  const transport = client.transport;
  const deliver = transport?.onmessage;
  if (!transport || !deliver) throw new Error('connect the client first');
  transport.onmessage = (message, extra) => {
    if ('result' in message || 'error' in message) setImmediate(() => deliver(message, extra));
    else deliver(message, extra);
  };
}
