/** The console's Keys panel, drawn from a state as the page receives it: use against bounds, budget, expiry, the Revoke control and its outcome. */
import { describe, expect, it } from 'vitest';
import { budgetUse, expiryText, lastUsedText } from '../src/console/browser/format.js';
import { gateUse, keyAtBound, keysTable, revokeOutcome, revokeQuestion } from '../src/console/browser/keys.js';
import type { KeyView } from '../src/console/state.js';
import { byTag, cellTexts, consoleState, findAll, NOW, received } from './console-snapshot.js';

const key = (fields: Partial<KeyView> = {}): KeyView => ({
  id: 'key_0123456789abcdef',
  name: 'billing',
  tenant: 'team-a',
  prefix: 'pgw_sk_Ab3d',
  state: 'active',
  limits: { rpm: 10, tpm: 0, maxConcurrency: 2 },
  budget: { usd: 1, window: 'day' },
  expiresAt: null,
  lastUsedAt: null,
  usage: { rpmUsed: 3, tpmUsed: 1200, inflight: 0, spentUsd: 0.25 },
  ...fields,
});

describe('the Keys panel', () => {
  it('writes a gate as its use against its bound, its bound alone when the use is unknown', () => {
    expect(gateUse(3, 10)).toBe('3 / 10');
    expect(gateUse(1200, 0)).toBe('1200 (no bound)');
    expect(gateUse(undefined, 10)).toBe('≤ 10');
    expect(gateUse(undefined, 0)).toBe('no bound');
  });

  it('writes a budget as spent of budget per window, in total for a total budget, and what a key without one spent', () => {
    expect(budgetUse(0.25, { usd: 1, window: 'day' })).toBe('$0.2500 of $1.00 per day');
    expect(budgetUse(2, { usd: 5, window: 'total' })).toBe('$2.00 of $5.00 in total');
    expect(budgetUse(undefined, { usd: 1, window: 'hour' })).toBe('$1.00 per hour');
    expect(budgetUse(0.5, null)).toBe('$0.5000 (no budget)');
    expect(budgetUse(undefined, null)).toBe('no budget');
  });

  it('says a key without an expiry never expires, one past it expired, and one never used never', () => {
    expect(expiryText(null, NOW)).toBe('never');
    expect(expiryText(new Date(NOW - 1).toISOString(), NOW)).toBe('expired');
    expect(expiryText(new Date(NOW + 60_000).toISOString(), NOW)).toBe(new Date(NOW + 60_000).toLocaleString());
    expect(lastUsedText(null)).toBe('never');
    expect(lastUsedText(new Date(NOW).toISOString())).toBe(new Date(NOW).toLocaleString());
  });

  it('marks a key at any of its bounds: a full gate or its budget spent; never when its use is unknown', () => {
    expect(keyAtBound(key())).toBe(false);
    expect(keyAtBound(key({ usage: { rpmUsed: 10, tpmUsed: 0, inflight: 0, spentUsd: 0 } }))).toBe(true);
    expect(keyAtBound(key({ usage: { rpmUsed: 0, tpmUsed: 0, inflight: 2, spentUsd: 0 } }))).toBe(true);
    expect(keyAtBound(key({ usage: { rpmUsed: 0, tpmUsed: 0, inflight: 0, spentUsd: 1 } }))).toBe(true);
    expect(keyAtBound(key({ limits: { rpm: 0, tpm: 0, maxConcurrency: 0 }, budget: null, usage: { rpmUsed: 99, tpmUsed: 99, inflight: 9, spentUsd: 9 } }))).toBe(false);
    expect(keyAtBound(key({ usage: undefined }))).toBe(false);
  });

  it('shows each key with its use against its bounds, budget, expiry and last use, and a Revoke button unless revoked', () => {
    const state = received(consoleState({
      keys: {
        list: [
          key(),
          key({ id: 'key_fedcba9876543210', name: null, state: 'rotating', budget: null, usage: { rpmUsed: 10, tpmUsed: 0, inflight: 0, spentUsd: 0.5 }, expiresAt: new Date(NOW - 1_000).toISOString() }),
          key({ id: 'key_revoked000000000', state: 'revoked', usage: undefined }),
        ],
      },
    }));
    const view = keysTable(state);
    expect(cellTexts(view)).toEqual([
      ['key_0123456789abcdef', 'billing', 'team-a', 'pgw_sk_Ab3d…', 'active', '3 / 10', '1200 (no bound)', '0 / 2', '$0.2500 of $1.00 per day', 'never', 'never', 'Revoke'],
      ['key_fedcba9876543210', '—', 'team-a', 'pgw_sk_Ab3d…', 'rotating at its bound', '10 / 10', '0 (no bound)', '0 / 2', '$0.5000 (no budget)', 'expired', 'never', 'Revoke'],
      ['key_revoked000000000', 'billing', 'team-a', 'pgw_sk_Ab3d…', 'revoked', '≤ 10', 'no bound', '≤ 2', '$1.00 per day', 'never', 'never', '—'],
    ]);
    const buttons = findAll(view, byTag('button'));
    expect(buttons.map((b) => b.attrs)).toEqual([
      { type: 'button', class: 'danger', 'data-revoke': 'key_0123456789abcdef', 'data-focus-id': 'revoke-key_0123456789abcdef', 'aria-label': 'Revoke billing (pgw_sk_Ab3d…)' },
      { type: 'button', class: 'danger', 'data-revoke': 'key_fedcba9876543210', 'data-focus-id': 'revoke-key_fedcba9876543210', 'aria-label': 'Revoke key_fedcba9876543210 (pgw_sk_Ab3d…)' },
    ]);
    expect(findAll(view, byTag('tr')).slice(1).map((tr) => tr.attrs['data-key'])).toEqual(['key_0123456789abcdef', 'key_fedcba9876543210', 'key_revoked000000000']);
  });

  it('says when the server keeps no keys, when it has none yet, and why the keys could not be read', () => {
    expect(cellTexts(keysTable(received(consoleState())))).toEqual([]);
    expect(findAll(keysTable(received(consoleState())), byTag('p'))[0]!.children).toEqual(['This server keeps no keys.']);
    expect(findAll(keysTable(received(consoleState({ keys: { list: [] } }))), byTag('p'))[0]!.children).toEqual(['No keys.']);
    const problem = keysTable(received(consoleState({ keys: { list: [], problem: 'not readable (SqliteError)' } })));
    expect(problem).toMatchObject({ tag: 'p', attrs: { class: 'problem' }, children: ['not readable (SqliteError)'] });
  });

  it('asks before revoking, naming the key and its tenant, and says what came of it', () => {
    expect(revokeQuestion(key())).toBe('Revoke billing (pgw_sk_Ab3d…) of tenant team-a? Every server refuses it from now on, and it cannot be restored.');
    expect(revokeOutcome(key(), 200, { state: 'revoked' })).toBe('Revoked billing (pgw_sk_Ab3d…).');
    expect(revokeOutcome(key(), 404, { error: { message: 'no key key_0123456789abcdef', type: 'not_found_error' } })).toBe('Not revoked: no key key_0123456789abcdef');
    expect(revokeOutcome(key(), 403, { error: 'the request must come from this console' })).toBe('Not revoked: the request must come from this console');
    expect(revokeOutcome(key(), 502, null)).toBe('Not revoked: HTTP 502');
  });
});
