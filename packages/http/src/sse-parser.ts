/**
 * A Server-Sent Events parser (the WHATWG event-stream grammar) reduced to what OpenAI-compatible
 * streams need: `event` and `data`. Chunks may split anywhere, even between the CR and LF of one line end.
 */

export interface SseEvent {
  /** The event's type: its last `event:` line, else `message`. An `error` event is an in-band failure. */
  event: string;
  /** The event's `data:` lines joined with '\n'. */
  data: string;
}

const DEFAULT_EVENT = 'message';

const LF = '\n';
const CR = '\r';
const SPACE = 0x20;
const BYTE_ORDER_MARK = 0xfeff;

export class SseParser {
  /** The unterminated tail of the input seen so far. */
  private partialLine = '';
  /** Text has arrived: a byte order mark opening it was ignored, as the grammar says. */
  private started = false;
  /** The previous chunk ended with CR: an LF opening the next chunk belongs to that line end. */
  private pendingCr = false;
  /** The event's data so far: its lines joined with LF; undefined before its first `data:` line. */
  private data: string | undefined;
  private eventType = DEFAULT_EVENT;

  constructor(private readonly onEvent: (event: SseEvent) => void) {}

  feed(chunk: string): void {
    if (chunk === '') return;
    let start = 0;
    if (!this.started) {
      this.started = true;
      if (chunk.charCodeAt(0) === BYTE_ORDER_MARK) start = 1;
    }
    if (this.pendingCr && chunk.startsWith(LF, start)) start += 1;
    this.pendingCr = false;
    // Most servers end lines with LF alone: one scan per line, no CR bookkeeping.
    if (chunk.indexOf(CR, start) === -1) {
      for (let end = chunk.indexOf(LF, start); end !== -1; end = chunk.indexOf(LF, start)) {
        this.line(chunk, start, end);
        start = end + 1;
      }
    } else {
      const lineEnds = new LineEnds(chunk);
      for (;;) {
        const end = lineEnds.next(start);
        if (end === -1) break;
        this.line(chunk, start, end);
        if (chunk[end] === CR) {
          if (end + 1 === chunk.length) this.pendingCr = true;
          else if (chunk[end + 1] === LF) {
            start = end + 2;
            continue;
          }
        }
        start = end + 1;
      }
    }
    this.partialLine += chunk.slice(start);
  }

  /**
   * The input ended. An event whose lines are all terminated but which lacks the closing blank line
   * is dispatched (servers often omit it before closing); an unterminated last line is incomplete
   * and dropped.
   */
  end(): void {
    this.partialLine = '';
    this.pendingCr = false;
    this.dispatch();
  }

  /** The line `chunk[start, end)`, after the unterminated tail of the previous chunks. */
  private line(chunk: string, start: number, end: number): void {
    const line = this.partialLine + chunk.slice(start, end);
    this.partialLine = '';
    this.processLine(line);
  }

  private processLine(line: string): void {
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.startsWith('data:')) {
      this.addData(line.charCodeAt(5) === SPACE ? line.slice(6) : line.slice(5));
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== 'data' && field !== 'event') return;
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.addData(value);
    else this.eventType = value === '' ? DEFAULT_EVENT : value;
  }

  private addData(value: string): void {
    this.data = this.data === undefined ? value : this.data + LF + value;
  }

  private dispatch(): void {
    const event = this.eventType;
    const { data } = this;
    this.eventType = DEFAULT_EVENT;
    if (data === undefined) return;
    this.data = undefined;
    this.onEvent({ event, data });
  }
}

/** Finds line ends (CR or LF) left to right, scanning for each character once per chunk. */
class LineEnds {
  private lf = -2;
  private cr = -2;

  constructor(private readonly chunk: string) {}

  next(from: number): number {
    if (this.lf !== -1 && this.lf < from) this.lf = this.chunk.indexOf(LF, from);
    if (this.cr !== -1 && this.cr < from) this.cr = this.chunk.indexOf(CR, from);
    if (this.cr === -1) return this.lf;
    if (this.lf === -1) return this.cr;
    return Math.min(this.cr, this.lf);
  }
}
