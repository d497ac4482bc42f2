/** Values that pass a type check but would break a request or a store later: refused by the settings, naming the key. */
import { describe, expect, it } from 'vitest';
import { GatewayClient, SettingsError, gatewaySettings, loadGatewaySettings } from '../src/index.js';

const BASE = { LLM__SOURCE__MAIN__BASE_URL: 'http://127.0.0.1:9/v1', LLM__SOURCE__MAIN__MODEL: 'm-1' };
const SOURCE = { name: 'main', baseUrl: 'http://127.0.0.1:9/v1', model: 'm-1' };

async function settingsErrorOf(run: () => unknown): Promise<SettingsError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return error as SettingsError;
  }
  throw new Error('expected a SettingsError');
}

const SECRET = 'sk-hunter2-';
const BAD_KEYS = [`${SECRET}\nx`, `${SECRET}\u20AC`, `${SECRET}\x01`];

describe('a header-illegal API_KEY', () => {
  it.each(BAD_KEYS.map((value) => [JSON.stringify(value), value]))('%s: fromEnv names the key and never echoes it', async (_, value) => {
    const env = { ...BASE, LLM__SOURCE__MAIN__API_KEY: value };
    for (const run of [() => loadGatewaySettings('LLM', { env }), () => GatewayClient.fromEnv('LLM', { env, warn: () => {} })]) {
      const error = await settingsErrorOf(run);
      expect(error.key).toBe('LLM__SOURCE__MAIN__API_KEY');
      expect(error.message).toContain('HTTP header value');
      expect(error.message).not.toContain('hunter2');
    }
  });

  it.each(BAD_KEYS.map((value) => [JSON.stringify(value), value]))('%s: direct construction names the key and field', async (_, value) => {
    const error = await settingsErrorOf(() => gatewaySettings({ scope: 'llm', sources: [{ ...SOURCE, apiKey: value }] }));
    expect(error.key).toBe('LLM__SOURCE__MAIN__API_KEY');
    expect(error.field).toBe('sources[0].apiKey');
    expect(error.message).not.toContain('hunter2');
  });

  it('accepts an ordinary key', () => {
    expect(gatewaySettings({ scope: 'llm', sources: [{ ...SOURCE, apiKey: 'sk-abc/DEF+123=' }] }).sources[0]!.apiKey).toBe('sk-abc/DEF+123=');
  });
});

describe('CACHE__NAMESPACE with a brace', () => {
  it.each(['memory', 'redis', 'none'])('is refused naming the key with the %s cache backend', async (backend) => {
    for (const namespace of ['{acme}', 'a}b', 'a{']) {
      const env = { ...BASE, PGW_CACHE_BACKEND: backend, REDIS_URL: 'redis://127.0.0.1:9', LLM__CACHE__NAMESPACE: namespace };
      const error = await settingsErrorOf(() => GatewayClient.fromEnv('LLM', { env, warn: () => {} }));
      expect(error.key).toBe('LLM__CACHE__NAMESPACE');
      expect(error.problem).toContain("'{' or '}'");
    }
  });

  it('is refused by direct construction too, and other punctuation is fine', async () => {
    const error = await settingsErrorOf(() => gatewaySettings({ scope: 'llm', sources: [SOURCE], cache: { namespace: 'x{y' } }));
    expect(error.key).toBe('LLM__CACHE__NAMESPACE');
    expect(gatewaySettings({ scope: 'llm', sources: [SOURCE], cache: { namespace: 'acme:prod/eu-1' } }).cache.namespace).toBe('acme:prod/eu-1');
  });
});
