/**
 * The console's script (`/ui/app.js`): it listens to `/ui/events` (EventSource reconnects by itself)
 * and redraws each section from the snapshot it receives.
 */
import { charts } from './charts.js';
import { byId, fill } from './dom.js';
import { clockTime } from './format.js';
import { keysTable } from './keys.js';
import { wireRevoke } from './revoke.js';
import type { ConsoleSnapshot } from './snapshot.js';
import { budgetsTable, failuresTable, panelSections, sourcesTable, tenantsTable } from './tables.js';

/** A stream the server closed for good (signed out, drained) is not retried by the browser: the page reloads after this. */
const RELOAD_AFTER_MS = 5000;

/** The last snapshot drawn: the Revoke buttons find their key in it. */
let latest: ConsoleSnapshot | undefined;

function draw(state: ConsoleSnapshot): void {
  latest = state;
  fill('charts', charts(state));
  fill('sources', [sourcesTable(state)]);
  fill('tenants', [tenantsTable(state)]);
  fill('budgets', [budgetsTable(state)]);
  fill('failures', [failuresTable(state)]);
  fill('keys', [keysTable(state)]);
  fill('panels', panelSections(state));
  say(state.draining ? 'Draining: the server is shutting down' : 'Live');
  byId('updated').textContent = `Updated ${clockTime(state.generatedAt)}`;
}

/** The status line is a live region: written only when it changes, so a screen reader is not told every second. */
function say(text: string): void {
  const status = byId('status');
  if (status.textContent !== text) status.textContent = text;
}

function connect(): void {
  const events = new EventSource('/ui/events');
  events.addEventListener('state', (event: MessageEvent<string>) => draw(JSON.parse(event.data) as ConsoleSnapshot));
  events.addEventListener('error', () => {
    say('Disconnected: reconnecting…');
    if (events.readyState === EventSource.CLOSED) setTimeout(() => location.reload(), RELOAD_AFTER_MS);
  });
}

document.addEventListener('DOMContentLoaded', () => {
  wireRevoke((id) => latest?.keys?.list.find((key) => key.id === id));
  connect();
});
