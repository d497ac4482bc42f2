import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import {
  embeddingSettings,
  gatewaySettings,
  loadEmbeddingSettings,
  loadGatewaySettings,
  loadOcrSettings,
  ocrSettings,
} from '../src/index.js';
import { ASSEMBLY_KEYS, LEGACY_ALIASES, SOURCE_KEYS, SOURCES_SUFFIX, scopeKeysOf } from '../src/settings/env-keys.js';
import type { SettingsKind } from '../src/settings/env-keys.js';

const EXAMPLE = fileURLToPath(new URL('../../../.env.example', import.meta.url));
const text = readFileSync(EXAMPLE, 'utf8');

/** The `.env.example` is documentation: it must mention every key and state the true defaults. */
describe('.env.example', () => {
  const scopes: [string, SettingsKind][] = [
    ['LLM', 'chat'],
    ['EMBED', 'embed'],
    ['OCR', 'ocr'],
  ];

  it.each(scopes)('documents every key of the %s scope, with a one-line explanation', (scope, kind) => {
    const keys = [
      ...scopeKeysOf(kind).map((k) => `${scope}__${k.suffix}`),
      ...SOURCE_KEYS.map((k) => `${scope}__SOURCE__MAIN__${k.field}`),
      `${scope}__${SOURCES_SUFFIX}`,
      ...ASSEMBLY_KEYS.map((k) => k.key),
    ];
    for (const key of keys) expect(text).toMatch(new RegExp(`^(# )?${key}=.*#\\s*\\S`, 'm'));
    for (const alias of LEGACY_ALIASES) expect(text).toContain(alias.alias(scope));
  });

  it('loads without warnings to exactly the defaults', () => {
    const warn = vi.fn();
    const options = { env: {}, envFile: EXAMPLE, warn };
    expect(loadGatewaySettings('LLM', options)).toStrictEqual(
      gatewaySettings({ scope: 'LLM', sources: [{ name: 'main', baseUrl: 'http://127.0.0.1:8787/main/v1', model: 'gpt-4o-mini' }] }),
    );
    expect(loadEmbeddingSettings('EMBED', options)).toStrictEqual(
      embeddingSettings({
        scope: 'EMBED',
        sources: [{ name: 'main', baseUrl: 'http://127.0.0.1:8787/main/v1', model: 'text-embedding-3-small' }],
      }),
    );
    expect(loadOcrSettings('OCR', options)).toStrictEqual(
      ocrSettings({ scope: 'OCR', sources: [{ name: 'main', baseUrl: 'http://127.0.0.1:8787/main' }] }),
    );
    expect(warn).not.toHaveBeenCalled();
  });
});
