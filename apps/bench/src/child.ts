/**
 * Child processes of the benchmarks (the mock server, Redis workers, the memory probe): TypeScript
 * modules forked with the tsx loader, spoken to with request/reply messages over IPC.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/** A request to a child: `id` pairs it with its reply. */
export interface ChildRequest {
  id: number;
  type: string;
  [field: string]: unknown;
}

/** A child's reply: `error` set when the request failed there. */
export interface ChildReply {
  id: number;
  error?: string;
  [field: string]: unknown;
}

const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export class ChildChannel {
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, { resolve: (reply: ChildReply) => void; reject: (error: Error) => void }>();
  #nextId = 1;
  #exit: Promise<number | null>;

  /**
   * Forks `module` (a URL of a .ts file) with the tsx loader and workspace packages resolved to
   * source; with `plain`, a .mjs file under plain node, workspace packages resolved to their dist.
   */
  constructor(module: URL, options: { args?: string[]; nodeFlags?: string[]; plain?: boolean } = {}) {
    const loader = options.plain ? [] : ['--import', tsxLoader, '--conditions=@pgw/source'];
    this.#child = fork(module, options.args ?? [], {
      execArgv: [...loader, ...(options.nodeFlags ?? [])],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.#child.on('message', (message: ChildReply) => {
      const waiter = this.#pending.get(message.id);
      if (!waiter) return;
      this.#pending.delete(message.id);
      if (message.error === undefined) waiter.resolve(message);
      else waiter.reject(new Error(`child ${module.pathname.split('/').pop()}: ${message.error}`));
    });
    this.#exit = once(this.#child, 'exit').then(([code]) => {
      for (const waiter of this.#pending.values()) waiter.reject(new Error(`child exited (code ${String(code)}) before replying`));
      this.#pending.clear();
      return code as number | null;
    });
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  request<T extends object = Record<string, unknown>>(type: string, fields: Record<string, unknown> = {}): Promise<ChildReply & T> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (reply: ChildReply) => void, reject });
      this.#child.send({ id, type, ...fields } satisfies ChildRequest);
    });
  }

  /** Waits for the child to exit after asking it to (`type` 'stop'); kills it if it does not within `graceMs`. */
  async stop(graceMs = 10_000): Promise<number | null> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return this.#exit;
    this.#child.send({ id: 0, type: 'stop' } satisfies ChildRequest);
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.#child.kill('SIGKILL');
        resolve();
      }, graceMs);
    });
    try {
      await Promise.race([this.#exit, killed]);
      return await this.#exit;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The child side: answers each request with `handle`'s result (or its error) and exits on 'stop'
 * after `onStop`.
 */
export function serveParent(handle: (request: ChildRequest) => Promise<object>, onStop: () => Promise<void> = async () => {}): void {
  const send = (reply: ChildReply): void => void process.send!(reply);
  process.on('message', (request: ChildRequest) => {
    if (request.type === 'stop') {
      onStop()
        .catch((error: unknown) => console.error('child cleanup failed:', error))
        .finally(() => process.disconnect());
      return;
    }
    handle(request).then(
      (fields) => send({ ...fields, id: request.id }),
      (error: unknown) => send({ id: request.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    );
  });
}
