/**
 * The governed clients the server calls, one per (client kind, scope), built with `fromEnv` on first
 * use and kept: a request's `model` names a scope through `PGW_SERVER__MODELS` (unset: every chat
 * model is scope LLM, every embedding model scope EMBED). A scope that fails to assemble keeps
 * failing with the same SettingsError until the server restarts (its keys cannot change meanwhile).
 */
import { EmbeddingClient, GatewayClient, SettingsError, loadEmbeddingSettings, loadGatewaySettings } from '@pgw/client';
import type { EnvRecord, GatewaySubscriber } from '@pgw/client';
import { UnknownModelError } from './door/request-error.js';

export type ClientKind = 'chat' | 'embed';
const DEFAULT_SCOPE: Record<ClientKind, string> = { chat: 'LLM', embed: 'EMBED' };

interface ClientOf {
  chat: GatewayClient;
  embed: EmbeddingClient;
}

export interface ScopeClientsOptions {
  env: EnvRecord;
  models: ReadonlyMap<string, string> | undefined;
  subscribers: readonly GatewaySubscriber[];
  warn: (message: string) => void;
}

export type BuiltClient = { kind: ClientKind; scope: string } & ({ client: GatewayClient | EmbeddingClient; problem?: undefined } | { client?: undefined; problem: string });

export class ScopeClients {
  readonly #built = new Map<string, Promise<GatewayClient | EmbeddingClient>>();
  readonly #options: ScopeClientsOptions;

  constructor(options: ScopeClientsOptions) {
    this.#options = options;
  }

  scopeOf(kind: ClientKind, model: string): string {
    const { models } = this.#options;
    if (models === undefined) return DEFAULT_SCOPE[kind];
    const scope = models.get(model);
    if (scope === undefined) throw new UnknownModelError(model);
    return scope;
  }

  client<E extends ClientKind>(kind: E, scope: string): Promise<ClientOf[E]> {
    const key = `${kind}:${scope}`;
    let client = this.#built.get(key);
    if (client === undefined) {
      const { env, subscribers, warn } = this.#options;
      const options = { env, subscribers, warn };
      client = kind === 'chat' ? GatewayClient.fromEnv(scope, options) : EmbeddingClient.fromEnv(scope, options);
      client.catch(() => undefined);
      this.#built.set(key, client);
    }
    return client as Promise<ClientOf[E]>;
  }

  /**
   * The model names a caller may send: the map's, or (no map) the models of the default scopes'
   * sources, read from their settings without building a client (a scope left unconfigured is
   * simply not listed, and does not become a readiness problem).
   */
  modelNames(): string[] {
    const { models, env } = this.#options;
    if (models !== undefined) return [...models.keys()];
    const options = { env, warn: () => {} };
    const names = [() => loadGatewaySettings(DEFAULT_SCOPE.chat, options), () => loadEmbeddingSettings(DEFAULT_SCOPE.embed, options)].flatMap((load) => {
      try {
        return load().sources.map((source) => source.model);
      } catch (error) {
        if (error instanceof SettingsError) return [];
        throw error;
      }
    });
    return [...new Set(names)];
  }

  /** What keeps the server from serving: the assembly errors of the clients built so far (with no model map, LLM's chat client is always among them). */
  async assemblyProblems(): Promise<string[]> {
    return (await this.built()).flatMap((built) => (built.problem === undefined ? [] : [built.problem]));
  }

  /** Every client built so far (with no model map, LLM's chat client always), or the problem that kept it from assembling. */
  async built(): Promise<BuiltClient[]> {
    if (this.#options.models === undefined) this.client('chat', DEFAULT_SCOPE.chat);
    const keys = [...this.#built.keys()];
    const settled = await Promise.allSettled(this.#built.values());
    return settled.map((client, index) => {
      const [kind, scope] = keys[index]!.split(':') as [ClientKind, string];
      return client.status === 'fulfilled' ? { kind, scope, client: client.value } : { kind, scope, problem: messageOf(client.reason) };
    });
  }

  /** Closes every client built (flushing its telemetry); one failing close does not keep the others open. */
  async close(): Promise<void> {
    const clients = await Promise.allSettled(this.#built.values());
    await Promise.allSettled(clients.map((built) => (built.status === 'fulfilled' ? built.value.close() : undefined)));
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
