/**
 * One upstream MCP server, supervised: its connection (a child process over stdio, or a Streamable
 * HTTP session) is opened on first use; when it dies it is opened again after a backoff that doubles
 * with each failure in a row (1 s up to 30 s), on a timer of its own, so the next call finds it up;
 * while in backoff it answers McpServerUnavailableError at once. `close` (the drain) stops it for good.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpServerUnavailableError } from './errors.js';
import type { McpServerSettings } from './settings.js';

const BACKOFF_BASE_MS = 1000;
const BACKOFF_MAX_MS = 30_000;
const RECENT_ERRORS = 5;
const CLIENT_INFO = { name: 'pgw-serve', version: '0.1.0' };

export type UpstreamHealth = 'idle' | 'starting' | 'up' | 'down';

export class Upstream {
  readonly settings: McpServerSettings;
  readonly #recent: string[] = [];
  #client: Promise<Client> | undefined;
  #up = false;
  #failures = 0;
  #retryAt = 0;
  #restart: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(settings: McpServerSettings) {
    this.settings = settings;
  }

  get name(): string {
    return this.settings.name;
  }

  get health(): UpstreamHealth {
    if (this.#up) return 'up';
    if (this.#client !== undefined) return 'starting';
    return this.#failures > 0 ? 'down' : 'idle';
  }

  /** The last few failures (their messages), newest last: the console shows them. */
  get recentErrors(): readonly string[] {
    return this.#recent;
  }

  /** The connected client, opened now if need be; in backoff or closed, McpServerUnavailableError. */
  connected(): Promise<Client> {
    if (this.#closed) return Promise.reject(new McpServerUnavailableError(this.name, 'down', BACKOFF_MAX_MS));
    if (this.#client !== undefined) return this.#client;
    const wait = this.#retryAt - performance.now();
    if (wait > 0) return Promise.reject(new McpServerUnavailableError(this.name, 'down', wait));
    const client = this.#open();
    this.#client = client;
    client.catch(() => undefined);
    return client;
  }

  /** Notes a failure of a call (the breaker has its own books; this is what the console lists). */
  noteError(error: unknown): void {
    this.#recent.push(error instanceof Error ? error.message : String(error));
    if (this.#recent.length > RECENT_ERRORS) this.#recent.shift();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#restart);
    const client = this.#client;
    this.#client = undefined;
    this.#up = false;
    await client?.then((open) => open.close()).catch(() => undefined);
  }

  async #open(): Promise<Client> {
    const client = new Client(CLIENT_INFO);
    try {
      await client.connect(this.#transport());
    } catch (error) {
      await client.close().catch(() => undefined);
      this.#failed(error);
      this.#client = undefined;
      throw new McpServerUnavailableError(this.name, 'down', this.#retryAt - performance.now(), error);
    }
    // Set after connecting: a failed start is reported above, a death of a started one here.
    client.onclose = () => this.#died(client);
    this.#up = true;
    this.#failures = 0;
    return client;
  }

  #transport(): Transport {
    const { transport } = this.settings;
    if (transport.kind === 'stdio') {
      // The child's stderr is its own log: it goes where the server's does.
      return new StdioClientTransport({ command: transport.command, args: [...transport.args], env: { ...getDefaultEnvironment(), ...transport.env }, stderr: 'inherit' });
    }
    return new StreamableHTTPClientTransport(transport.url, { requestInit: { headers: { ...transport.headers } } });
  }

  #died(client: Client): void {
    if (this.#closed) return;
    void this.#client?.then((current) => {
      if (current !== client) return;
      this.#client = undefined;
      this.#up = false;
      this.#failed(new Error(`MCP server "${this.name}" closed its connection`));
      this.#scheduleRestart();
    }, () => undefined);
  }

  #failed(error: unknown): void {
    this.noteError(error);
    this.#failures += 1;
    this.#retryAt = performance.now() + Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (this.#failures - 1));
  }

  /** Restarts a server that died once its backoff is over (a failed restart schedules the next). */
  #scheduleRestart(): void {
    clearTimeout(this.#restart);
    this.#restart = setTimeout(() => {
      this.#restart = undefined;
      if (this.#closed || this.#client !== undefined) return;
      this.connected().catch(() => {
        if (!this.#closed) this.#scheduleRestart();
      });
    }, Math.max(0, this.#retryAt - performance.now()));
    this.#restart.unref();
  }
}
