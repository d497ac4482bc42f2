import { loadGatewaySettings, SettingsError } from '@pgw/client';
import type { EnvRecord } from '@pgw/client';
import { expect, test } from 'vitest';
import { checkConfig } from '../src/check/config-problems.js';

const load = (env: EnvRecord) => loadGatewaySettings('LLM', { env, warn: () => {} });
const GOOD = { LLM__SOURCE__A__BASE_URL: 'http://127.0.0.1:9/v1', LLM__SOURCE__A__MODEL: 'm' };

test('a valid scope gives its settings and no problem', () => {
  const result = checkConfig(load, new Map(Object.entries(GOOD)));
  expect(result.problems).toEqual([]);
  expect(result.settings?.sources.map((s) => s.name)).toEqual(['a']);
});

test('every independently malformed key is reported, each naming its key', () => {
  const env = new Map(Object.entries({ ...GOOD, LLM__SOURCE__A__RPM: 'abc', LLM__MAX_ATTEMPTS: 'x', LLM__QUOTA_FULL: 'maybe' }));
  const result = checkConfig(load, env);
  expect(result.settings).toBeUndefined();
  expect(result.problems.every((p) => p instanceof SettingsError)).toBe(true);
  expect(result.problems.map((p) => p.key).sort()).toEqual(['LLM__MAX_ATTEMPTS', 'LLM__QUOTA_FULL', 'LLM__SOURCE__A__RPM']);
  expect(env.size).toBe(5);
});

test('a missing required key is reported once and ends the search', () => {
  const result = checkConfig(load, new Map(Object.entries({ LLM__SOURCE__A__BASE_URL: 'http://127.0.0.1:9/v1' })));
  expect(result.problems).toHaveLength(1);
  expect(result.problems[0]!.key).toBe('LLM__SOURCE__A__MODEL');
});
