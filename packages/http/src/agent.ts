import { Agent, type Dispatcher } from 'undici';

export interface AgentOptions {
  /**
   * Connections per origin. Default: no bound — what is in flight is the governance's to bound
   * (`MAX_CONCURRENCY` and the other gates), where it is seen: a call waiting in this agent's queue
   * is unseen and spends its attempt timeout unsent (docs/decisions.md, "No hidden bound on the
   * upstream connections").
   */
  connections?: number;
  /** How long an idle keep-alive socket is kept. Default undici's (4 s). */
  keepAliveTimeoutMs?: number;
}

/**
 * The dispatcher a client shares across its models: one keep-alive pool per origin. undici's own
 * header and body timers stay off: every attempt is bounded by its own timeout (and, for a
 * stream, the liveness limits), so a slow answer fails the same way whatever the dispatcher.
 */
export function createAgent(options: AgentOptions = {}): Agent {
  const connections = options.connections;
  if (connections !== undefined && (!Number.isInteger(connections) || connections < 1)) {
    throw new RangeError(`createAgent(options.connections) must be a positive integer, got ${String(connections)}`);
  }
  const keepAlive = options.keepAliveTimeoutMs;
  if (keepAlive !== undefined && !(Number.isFinite(keepAlive) && keepAlive > 0)) {
    throw new RangeError(`createAgent(options.keepAliveTimeoutMs) must be a positive number of milliseconds, got ${String(keepAlive)}`);
  }
  return new Agent({
    ...(connections !== undefined && { connections }),
    pipelining: 1,
    headersTimeout: 0,
    bodyTimeout: 0,
    ...(keepAlive !== undefined && { keepAliveTimeout: keepAlive }),
  });
}

/**
 * The dispatcher of one model: the injected one (a client's shared Agent; never closed by the
 * model), or an own Agent created on first use and closed by `close()`. After `close()` the model
 * refuses new attempts.
 */
export class ModelDispatcher {
  private own: Agent | undefined;
  private closed = false;

  /** `label` names the model in the error of a call after `close()`. */
  constructor(
    private readonly injected: Dispatcher | undefined,
    private readonly label: string,
  ) {}

  get(): Dispatcher {
    if (this.closed) throw new Error(`${this.label} is closed`);
    return this.injected ?? (this.own ??= createAgent());
  }

  /** Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    const own = this.own;
    this.own = undefined;
    await own?.close();
  }
}
