import { SettingsError } from '@pgw/client';
import { describe, expect, it } from 'vitest';
import { ApiKeys, MAX_MODELS_PER_KEY, readApiKeys } from '../src/door/api-keys.js';
import { callerOf } from '../src/door/caller.js';
import { InvalidRequestFieldError } from '../src/index.js';

const SECRET = 'sk-secret-9f8e7d6c';

function refusal(table: unknown): SettingsError {
  try {
    readApiKeys(JSON.stringify(table));
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as SettingsError).message).not.toContain(SECRET);
    return error as SettingsError;
  }
  throw new Error('the table was accepted');
}

describe('ApiKeys', () => {
  const { keys: table } = readApiKeys(JSON.stringify({ 'sk-team-a-0001': 'team-a', 'sk-team-b-0002': { tenant: 'team-b', priority: 'batch', models: ['gpt-4o-mini'] } }));
  const keys = new ApiKeys(table);

  it('finds the policy of a bearer key wherever it stands in the table', () => {
    expect(keys.policyOf({ authorization: 'Bearer sk-team-a-0001' })).toEqual({ tenantId: 'team-a', priority: 'interactive' });
    expect(keys.policyOf({ authorization: 'bearer sk-team-b-0002' })).toEqual({ tenantId: 'team-b', priority: 'batch', models: new Set(['gpt-4o-mini']) });
    expect(keys.policyOf({ 'x-api-key': 'sk-team-b-0002' })?.tenantId).toBe('team-b');
  });

  it('knows no missing, malformed, partial or unknown key', () => {
    for (const header of [undefined, '', 'sk-team-a-0001', 'Basic sk-team-a-0001', 'Bearer sk-team-a-000', 'Bearer sk-team-a-00011', 'Bearer ']) {
      expect(keys.policyOf({ authorization: header })).toBeUndefined();
    }
    // Authorization, when sent, is the key; a repeated x-api-key is none.
    expect(keys.policyOf({ authorization: 'Basic x', 'x-api-key': 'sk-team-a-0001' })).toBeUndefined();
    expect(keys.policyOf({ 'x-api-key': ['sk-team-a-0001', 'sk-team-a-0001'] })).toBeUndefined();
  });
});

describe('the object form of a key', () => {
  it('defaults the priority to interactive and the models to all', () => {
    expect(readApiKeys(JSON.stringify({ [SECRET]: { tenant: 't' } })).keys.get(SECRET)).toEqual({ tenantId: 't', priority: 'interactive' });
  });

  it.each([
    [{ priority: 'batch' }, /"tenant" must be a tenant id/],
    [{ tenant: '' }, /"tenant" must be a tenant id/],
    [{ tenant: 'x'.repeat(257) }, /"tenant" must be a tenant id/],
    [{ tenant: 7 }, /"tenant" must be a tenant id/],
    [{ tenant: 't', priority: 'urgent' }, /"priority" must be one of interactive, batch/],
    [{ tenant: 't', priority: ['batch'] }, /"priority" must be one of/],
    [{ tenant: 't', models: 'gpt-4o-mini' }, /"models" must be a list of 1 to 1000/],
    [{ tenant: 't', models: [] }, /"models" must be a list/],
    [{ tenant: 't', models: [1, 2] }, /"models" must be a list/],
    [{ tenant: 't', models: [{ name: 'gpt' }] }, /"models" must be a list/],
    [{ tenant: 't', models: Array.from({ length: MAX_MODELS_PER_KEY + 1 }, (_, i) => `m${i}`) }, /"models" must be a list of 1 to 1000/],
    [{ tenant: 't', role: 'admin' }, /may hold only tenant, priority, models/],
  ])('refuses %j naming the field and the position, never the key', (value, problem) => {
    const { message } = refusal({ 'sk-first-0000001': 'a', 'sk-second-000002': 'b', [SECRET]: value });
    expect(message).toMatch(new RegExp(`key #3 ${problem.source}`));
  });

  it.each([[null], [true], [12], [['team-a']]])('refuses the non-string, non-object value %j', (value) => {
    expect(refusal({ [SECRET]: value }).message).toMatch(/key #1 must map to a tenant id or an object/);
  });

  it('takes a key with exactly the bound of models', () => {
    const models = Array.from({ length: MAX_MODELS_PER_KEY }, (_, i) => `m${i}`);
    expect(readApiKeys(JSON.stringify({ [SECRET]: { tenant: 't', models } })).keys.get(SECRET)?.models?.size).toBe(MAX_MODELS_PER_KEY);
  });
});

describe('x-pgw-priority', () => {
  const interactive = { tenantId: 'a', priority: 'interactive' } as const;
  const batch = { tenantId: 'b', priority: 'batch' } as const;

  it('lowers a key’s priority and never raises it', () => {
    expect(callerOf(interactive, undefined).priority).toBe('interactive');
    expect(callerOf(interactive, 'batch').priority).toBe('batch');
    expect(callerOf(batch, 'interactive').priority).toBe('batch');
    expect(callerOf(undefined, 'batch')).toEqual({ priority: 'batch' });
  });

  it.each([[''], ['Batch'], ['batch '], ['urgent'], ['batch\r\nx-evil: 1'], [['batch', 'batch']]])('refuses %j naming the header, not echoing it', (header) => {
    const thrown = (() => {
      try {
        callerOf(interactive, header);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(thrown).toBeInstanceOf(InvalidRequestFieldError);
    expect((thrown as InvalidRequestFieldError).param).toBe('x-pgw-priority');
    expect((thrown as Error).message).not.toContain('urgent');
  });
});
