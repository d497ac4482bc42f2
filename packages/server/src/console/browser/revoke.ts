/**
 * Revoking a key from the Keys panel: a Revoke button opens the page's modal dialog with the
 * question; only its Revoke button sends `DELETE /ui/keys/{id}` (the console's session cookie goes
 * with it, and the browser's `Origin` lets the server refuse another site's request). What came of it
 * is said in the panel's status line.
 */
import { byId } from './dom.js';
import { keyLabel, revokeOutcome, revokeQuestion } from './keys.js';
import type { KeySnapshot } from './snapshot.js';

async function revoke(key: KeySnapshot): Promise<string> {
  try {
    const response = await fetch(`/ui/keys/${encodeURIComponent(key.id)}`, { method: 'DELETE', headers: { accept: 'application/json' } });
    return revokeOutcome(key, response.status, await response.json().catch(() => null));
  } catch {
    return 'Not revoked: the server could not be reached.';
  }
}

/**
 * Wires the panel's buttons (they are redrawn every second, so one listener on the panel serves
 * them all) to the dialog. `find` answers the key of an id from the latest snapshot.
 */
export function wireRevoke(find: (id: string) => KeySnapshot | undefined): void {
  const dialog = byId('revoke-dialog') as HTMLDialogElement;
  const message = byId('keys-message');
  let pending: KeySnapshot | undefined;
  byId('keys').addEventListener('click', (event) => {
    const button = (event.target as Element).closest('button[data-revoke]');
    const key = button === null ? undefined : find(button.getAttribute('data-revoke') ?? '');
    if (key === undefined) return;
    pending = key;
    byId('revoke-question').textContent = revokeQuestion(key);
    dialog.returnValue = '';
    dialog.showModal();
  });
  dialog.addEventListener('close', () => {
    const key = pending;
    pending = undefined;
    if (key === undefined || dialog.returnValue !== 'revoke') return;
    message.textContent = `Revoking ${keyLabel(key)}…`;
    void revoke(key).then((text) => (message.textContent = text));
  });
}
