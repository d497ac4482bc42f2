/**
 * What the console's Keys panel reads and does: the newest stored keys with their use, and a
 * revocation made as the admin API makes it (one audit row, every server told).
 */
import type { Clock, KeyBounds } from '@pgw/core';
import type { KeyView } from '../console/state.js';
import { boundsOf } from './key-bounds.js';
import { KeyNotFoundError, type KeyAdmin } from './key-admin.js';
import type { KeyUsage } from './key-usage.js';
import { keyRecordOf } from './key-view.js';
import type { StoredKeys } from './stored-keys.js';

/** The panel is redrawn every second: it reads the newest keys only (the admin API lists them all). */
export const PANEL_KEYS = 100;
/** Who the audit names for a revocation from the console. */
export const CONSOLE_ACTOR = 'console';

export interface KeyPanelParts {
  keys: StoredKeys;
  admin: KeyAdmin;
  now: Clock;
  usageOf: (bounds: KeyBounds) => Promise<KeyUsage>;
}

export function keyPanel({ keys, admin, now, usageOf }: KeyPanelParts) {
  return {
    keys: async (): Promise<KeyView[]> => {
      const records = await (await keys.store()).list({ limit: PANEL_KEYS });
      return Promise.all(records.map(async (record) => ({ ...keyRecordOf(record, now()), usage: await usageOf(boundsOf(record)) })));
    },
    revokeKey: async (id: string): Promise<KeyView | undefined> => {
      try {
        return keyRecordOf(await admin.revoke(id, CONSOLE_ACTOR), now());
      } catch (error) {
        if (error instanceof KeyNotFoundError) return undefined;
        throw error;
      }
    },
  };
}
