/**
 * What becomes of the body of a request answered from its headers. Closing the socket with the body
 * unread makes the kernel reset the connection, and a caller still sending (Node's `fetch` posting
 * a 6 MB image) gets `EPIPE` instead of its 401 or 404. So the body is read and discarded as it
 * comes, never parsed, and the connection kept — bounded as nginx's lingering close is: a body that
 * has not ended within `LINGER_MS`, or passes `LINGER_BYTES`, has its connection closed.
 */
import type { IncomingMessage } from 'node:http';

export const LINGER_MS = 5_000;
export const LINGER_BYTES = 64 * 1024 * 1024;

/** Whether the request announces a body. */
export const hasBody = (request: IncomingMessage) => request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;

/**
 * Discards the body of `request` as it comes; false when it announces more than `LINGER_BYTES`, and
 * then the answer must close the connection.
 */
export function discardBody(request: IncomingMessage): boolean {
  if (Number(request.headers['content-length'] ?? 0) > LINGER_BYTES) return false;
  let read = 0;
  const cutOff = () => request.socket.destroy();
  const timer = setTimeout(cutOff, LINGER_MS).unref();
  request.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > LINGER_BYTES) cutOff();
  });
  const settle = () => clearTimeout(timer);
  request.once('end', settle);
  request.once('close', settle);
  return true;
}
