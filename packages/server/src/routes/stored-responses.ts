/**
 * The Responses API's conversation state: a response stored (`store` not false) is kept with the
 * input items that led to it for PGW_SERVER__RESPONSES_TTL_S, in the record store of the governance
 * backend (memory, or Redis so any server of a fleet continues it), under the key's tenant — another
 * tenant's id is simply not there.
 */
import type { openRecordStore } from '@pgw/client';
import { InvalidRequestFieldError } from '@pgw/wire';
import { StoredResponsesUnavailableError } from '../door/request-error.js';

type RecordStore = Awaited<ReturnType<typeof openRecordStore>>;

interface StoredResponse {
  response: { output: unknown[] } & Record<string, unknown>;
  /** The input items of the whole conversation before this response: its chain's, then its request's. */
  input: unknown[];
}

export class StoredResponses {
  readonly #open: () => Promise<RecordStore>;
  readonly #ttlMs: number;
  #store: Promise<RecordStore> | undefined;

  constructor(open: () => Promise<RecordStore>, ttlMs: number) {
    this.#open = open;
    this.#ttlMs = ttlMs;
  }

  /** The items a continuation of `id` starts from: the stored input, then the response's output. */
  async conversationOf(tenant: string, id: string): Promise<unknown[]> {
    const stored = await this.#read(tenant, id);
    if (stored === undefined) throw new InvalidRequestFieldError('previous_response_id', `names no stored response ('${id}' is unknown, expired, deleted or not this key's)`);
    return [...stored.input, ...stored.response.output];
  }

  async keep(tenant: string, response: StoredResponse['response'], input: unknown[]): Promise<void> {
    const value = JSON.stringify({ response, input } satisfies StoredResponse);
    await this.#use((store) => store.set(keyOf(tenant, String(response['id'])), value, this.#ttlMs));
  }

  async responseOf(tenant: string, id: string): Promise<Record<string, unknown> | undefined> {
    return (await this.#read(tenant, id))?.response;
  }

  delete(tenant: string, id: string): Promise<boolean> {
    return this.#use((store) => store.delete(keyOf(tenant, id)));
  }

  /** What keeps the store from opening (readiness opens it). */
  async problems(): Promise<string[]> {
    this.#store ??= this.#open();
    return this.#store.then(
      () => [],
      (error: unknown) => [`stored responses: ${error instanceof Error ? error.message : String(error)}`],
    );
  }

  async close(): Promise<void> {
    const store = await this.#store?.catch(() => undefined);
    await store?.close?.();
  }

  async #read(tenant: string, id: string): Promise<StoredResponse | undefined> {
    const value = await this.#use<string | undefined>((store) => store.get(keyOf(tenant, id)));
    return value === undefined ? undefined : (JSON.parse(value) as StoredResponse);
  }

  /** Opens the store on first use; a settings problem propagates as it is, a store that fails is unavailable. */
  async #use<T>(operation: (store: RecordStore) => Promise<T>): Promise<T> {
    this.#store ??= this.#open();
    const store = await this.#store;
    try {
      return await operation(store);
    } catch (cause) {
      throw new StoredResponsesUnavailableError(cause);
    }
  }
}

// The tenant is encoded so no tenant id can reach into another's key space.
const keyOf = (tenant: string, id: string) => `${encodeURIComponent(tenant)}/${encodeURIComponent(id)}`;
