import { wholeAnswerDelta, type ChatDelta, type LLMResponse } from '@pgw/core';
import { joinSharedSignal, leaveSharedSignal } from '@pgw/core/internal';

/** What a streamed chat call hands back: the deltas as they arrive, and the whole answer once complete. */
export interface ChatStream extends AsyncIterable<ChatDelta> {
  /**
   * Resolves with the full answer (content = the concatenated content deltas) once the call completed;
   * rejects with the error the iterator throws. Marked handled: a caller that only iterates sees the
   * error there and gets no unhandled rejection.
   */
  readonly response: Promise<LLMResponse>;
}

/** What the call gets from its stream: cancellation (the caller's signal or the consumer stopping) and the delta sink. */
export interface StreamHooks {
  signal: AbortSignal;
  onDelta: (delta: ChatDelta) => void;
}

/**
 * Starts `call` at once (a caller that only awaits `response` needs no iteration) and exposes its
 * deltas as a single-consumer async iterator. Deltas are queued until pulled: the upstream is never
 * paused (a paused stream would hold its permit and trip its liveness limits), so the buffer is bounded by
 * the answer's length. Stopping early (`break` → `return()`) aborts the call and resolves once its
 * cleanup — settle, release, the cancelled attempt row, the terminal row — has run.
 */
export function streamCall(call: (hooks: StreamHooks) => Promise<LLMResponse>, callerSignal?: AbortSignal): ChatStream {
  return new DeltaStream(call, callerSignal);
}

const DONE: IteratorResult<ChatDelta> = { done: true, value: undefined };

type Ending = { readonly failed: false } | { readonly failed: true; readonly error: unknown };

/** A `next()` waiting for the next delta or the end. */
interface Pull {
  readonly settled: Promise<IteratorResult<ChatDelta>>;
  resolve(result: IteratorResult<ChatDelta>): void;
  reject(error: unknown): void;
}

/**
 * The call runs under ONE controller of its own, which the consumer stopping aborts directly and
 * which follows the caller's signal through the single listener that signal carries however many
 * calls share it (`joinSharedSignal`). A delta that arrives while the consumer waits settles its
 * `next()` directly, without a hop through the queue.
 */
class DeltaStream implements ChatStream, AsyncIterator<ChatDelta> {
  readonly response: Promise<LLMResponse>;
  private readonly queue: ChatDelta[] = [];
  private readonly own = new AbortController();
  private answerForwarded = false;
  /** How the call ended; the iterator reports it once the queue is drained. */
  private ending: Ending | undefined;
  /** The consumer is done: it stopped early, or it has seen the end. */
  private closed = false;
  private pull: Pull | undefined;

  constructor(call: (hooks: StreamHooks) => Promise<LLMResponse>, callerSignal: AbortSignal | undefined) {
    joinSharedSignal(callerSignal, this.own);
    const started = new Promise<LLMResponse>((resolve) => resolve(call({ signal: this.own.signal, onDelta: this.push })));
    this.response = started.then(
      (response) => {
        leaveSharedSignal(callerSignal, this.own);
        // Nothing was streamed (a cache hit, a transport that answered whole): the answer is one delta.
        const answered = response.content !== '' || (response.toolCalls?.length ?? 0) > 0;
        const whole = answered && !this.answerForwarded ? wholeAnswerDelta(response) : undefined;
        if (whole !== undefined) this.push(whole);
        this.end({ failed: false });
        return response;
      },
      (error: unknown) => {
        leaveSharedSignal(callerSignal, this.own);
        this.end({ failed: true, error });
        throw error;
      },
    );
    this.response.catch(() => undefined);
  }

  [Symbol.asyncIterator](): AsyncIterator<ChatDelta> {
    return this;
  }

  next(): Promise<IteratorResult<ChatDelta>> {
    if (this.closed) return Promise.resolve(DONE);
    const delta = this.queue.shift();
    if (delta !== undefined) return Promise.resolve({ done: false, value: delta });
    const { ending } = this;
    if (ending !== undefined) {
      this.closed = true;
      return ending.failed ? Promise.reject(ending.error) : Promise.resolve(DONE);
    }
    // A second next() before the first settled is served after it, in order.
    const waiting = this.pull;
    if (waiting !== undefined) return waiting.settled.then(this.again, this.again);
    let resolve!: Pull['resolve'];
    let reject!: Pull['reject'];
    const settled = new Promise<IteratorResult<ChatDelta>>((onResult, onError) => {
      resolve = onResult;
      reject = onError;
    });
    this.pull = { settled, resolve, reject };
    return settled;
  }

  private readonly again = (): Promise<IteratorResult<ChatDelta>> => this.next();

  /** The consumer stopped (`break`): abort the call if it still runs, and wait for its cleanup. */
  async return(): Promise<IteratorResult<ChatDelta>> {
    if (!this.closed) {
      this.closed = true;
      this.queue.length = 0;
      if (!this.ending) this.own.abort(new DOMException('the consumer stopped reading the chat stream', 'AbortError'));
    }
    await this.response.then(
      () => undefined,
      () => undefined,
    );
    return DONE;
  }

  private readonly push = (delta: ChatDelta): void => {
    if (this.closed) return;
    if (delta.content || delta.toolCalls?.length) this.answerForwarded = true;
    const { pull } = this;
    if (pull === undefined) {
      this.queue.push(delta);
      return;
    }
    this.pull = undefined;
    pull.resolve({ done: false, value: delta });
  };

  private end(ending: Ending): void {
    this.ending = ending;
    const { pull } = this;
    if (pull === undefined) return;
    this.pull = undefined;
    this.closed = true;
    if (ending.failed) pull.reject(ending.error);
    else pull.resolve(DONE);
  }
}
