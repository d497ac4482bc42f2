/**
 * One JSON line per request (method, route, status, duration, tenant, call id, request id) and one
 * per fault of the server (its detail, which the caller never sees). Never a key, a prompt or an
 * answer: only what the request's routing and the governed call's headers say.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A string as JSON, or `null` when absent. */
const text = (value: string | undefined): string => (value === undefined ? 'null' : JSON.stringify(value));

let isoMs = Number.NaN;
let iso = '';
/** The time as ISO 8601, formatted once per millisecond: requests that end together share it. */
function isoNow(): string {
  const now = Date.now();
  if (now !== isoMs) {
    isoMs = now;
    iso = new Date(now).toISOString();
  }
  return iso;
}

/** A status for a request whose caller went away before any answer was sent (as nginx logs it). */
const CLOSED_BEFORE_ANSWER = 499;

export class AccessLog {
  constructor(
    readonly sink: (line: string) => void,
    readonly accessLines: boolean,
  ) {}

  watch(request: FastifyRequest, reply: FastifyReply): void {
    if (!this.accessLines) return;
    const started = performance.now();
    reply.raw.on('close', () => {
      const response = reply.raw;
      const callId = response.getHeader('x-pgw-call-id');
      const status = response.headersSent ? response.statusCode : CLOSED_BEFORE_ANSWER;
      const durationMs = Math.round((performance.now() - started) * 100) / 100;
      // The fields in a fixed order, each string escaped by JSON.stringify: the line JSON.stringify
      // writes for the object, without building the object (one per request).
      this.sink(
        `{"time":"${isoNow()}","requestId":${text(request.id)},"method":${text(request.method)},"route":${text(request.routeOptions.url)},` +
          `"status":${status},"durationMs":${durationMs},"tenant":${text(request.caller?.tenantId)},"callId":${text(typeof callId === 'string' && callId !== '' ? callId : undefined)}}`,
      );
    });
  }

  fault(requestId: string | undefined, error: unknown): void {
    const detail = error instanceof Error ? { error: error.name, message: error.message, stack: error.stack } : { error: String(error) };
    this.sink(JSON.stringify({ time: isoNow(), level: 'error', requestId: requestId ?? null, ...detail }));
  }
}

/**
 * Lines gathered into one write per turn of the event loop: a write to a pipe is a system call that
 * wakes its reader, and one per request was most of the access log's CPU under load (bench/profiles.md,
 * "pgw serve, proxied chat completion"). Lines still gathered when the process exits are written then.
 */
export class LineBatch {
  #pending: string[] = [];
  #exitHooked = false;

  constructor(readonly write: (text: string) => void) {}

  readonly line = (line: string): void => {
    if (this.#pending.push(line) > 1) return;
    setImmediate(this.flush);
    if (this.#exitHooked) return;
    this.#exitHooked = true;
    process.once('exit', this.flush);
  };

  readonly flush = (): void => {
    if (this.#pending.length === 0) return;
    const lines = this.#pending;
    this.#pending = [];
    this.write(`${lines.join('\n')}\n`);
  };
}
