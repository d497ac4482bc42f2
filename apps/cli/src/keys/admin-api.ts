/**
 * The HTTP client of the admin API (`/admin/keys`) behind `pgw keys`: one request per command,
 * bearer-authenticated with the admin key, aborted by Ctrl-C or after `REQUEST_TIMEOUT_MS`. A JSON
 * error answer becomes an `AdminApiError` carrying its status, type, code and the field it names;
 * the admin key is never part of any message.
 */
import { AdminApiError } from './admin-api-error.js';

const REQUEST_TIMEOUT_MS = 30_000;
/** An answer larger than this is not an admin API's (a list of keys is far smaller). */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export interface AdminApiOptions {
  /** The server's base URL, e.g. `http://127.0.0.1:8787`. */
  readonly url: string;
  readonly adminKey: string;
  readonly signal: AbortSignal;
}

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export class AdminApi {
  readonly #base: string;
  readonly #adminKey: string;
  readonly #signal: AbortSignal;

  constructor(options: AdminApiOptions) {
    this.#base = options.url.replace(/\/+$/, '');
    this.#adminKey = options.adminKey;
    this.#signal = options.signal;
  }

  /** Sends one request to `path` (under the base URL) and answers its JSON body. */
  async request<T>(method: Method, path: string, body?: unknown): Promise<T> {
    const url = `${this.#base}${path}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${this.#adminKey}`,
          accept: 'application/json',
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.any([this.#signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
        redirect: 'error',
      });
    } catch (error) {
      if (this.#signal.aborted) throw error;
      throw new AdminApiError({ status: 0, message: `cannot reach ${this.#base} (${reasonOf(error)})` });
    }
    const text = await response.text();
    if (text.length > MAX_ANSWER_BYTES) throw new AdminApiError({ status: response.status, message: 'the answer is too large to be the admin API\'s' });
    const json = parseJson(text);
    if (response.ok) {
      if (json === undefined) throw new AdminApiError({ status: response.status, message: `${method} ${path}: the answer is not JSON` });
      return json as T;
    }
    throw errorOf(response, json, this.#adminKey);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The error answer `{ error: { message, type, param?, code? } }`, or the bare status when the body is not one. */
function errorOf(response: Response, json: unknown, adminKey: string): AdminApiError {
  const error = (json as { error?: unknown } | undefined)?.error;
  const field = (name: string): string | undefined => {
    const value = typeof error === 'object' && error !== null ? (error as Record<string, unknown>)[name] : undefined;
    // A server that echoes the admin key back must not get it printed.
    return typeof value === 'string' ? value.split(adminKey).join('…') : undefined;
  };
  const retryAfter = response.headers.get('retry-after');
  return new AdminApiError({
    status: response.status,
    message: field('message') ?? `HTTP ${response.status} ${response.statusText}`.trim(),
    type: field('type'),
    param: field('param'),
    code: field('code'),
    ...(retryAfter !== null && /^\d+$/.test(retryAfter) && { retryAfterS: Number(retryAfter) }),
  });
}

function reasonOf(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer in ${REQUEST_TIMEOUT_MS / 1000} s`;
  // fetch's own error says only "fetch failed": the reason is its cause's code (ECONNREFUSED) or message.
  const cause = error instanceof Error ? (error.cause as NodeJS.ErrnoException | undefined) : undefined;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
