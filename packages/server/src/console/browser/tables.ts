/** The console's tables, drawn from a snapshot: sources, tenants, budgets, failed calls and the panels. */
import { bound, breakerText, clockTime, errorsText, resetText, usd } from './format.js';
import type { BreakerSnapshot, ConsoleSnapshot } from './snapshot.js';
import { h, type View, type ViewElement } from './view.js';

/** A table with a caption for screen readers, or a line saying there is nothing to show. */
export function table(caption: string, head: readonly string[], rows: readonly ViewElement[]): ViewElement {
  if (rows.length === 0) return h('p', { class: 'empty' }, [`No ${caption.toLowerCase()}.`]);
  const thead = h('thead', {}, [h('tr', {}, head.map((name) => h('th', { scope: 'col' }, [name])))]);
  return h('table', {}, [h('caption', { class: 'visually-hidden' }, [caption]), thead, h('tbody', {}, rows)]);
}

/** A row: a cell given as a `td` keeps its own attributes, anything else goes in a plain one. */
export function row(attrs: Readonly<Record<string, string>>, cells: readonly (View | number)[]): ViewElement {
  return h('tr', attrs, cells.map((cell) => (typeof cell === 'object' && cell.tag === 'td' ? cell : h('td', {}, [cell]))));
}

const badge = (css: string, text: string) => h('span', { class: `badge ${css}` }, [text]);

function breakerCell(breaker: BreakerSnapshot | undefined, now: number): ViewElement {
  if (breaker === undefined) return h('td', { class: 'breaker' }, ['unknown']);
  return h('td', { class: 'breaker' }, [badge(`state-${breaker.state}`, breakerText(breaker, now))]);
}

export function sourcesTable(state: ConsoleSnapshot): ViewElement {
  const rows = state.scopes.flatMap((scope) => {
    if (scope.problem) return [row({ 'data-scope': scope.scope }, [scope.scope, '—', '—', h('td', { class: 'problem', colspan: 6 }, [scope.problem])])];
    return scope.sources.map((s) =>
      row({ 'data-scope': scope.scope, 'data-source': s.source }, [
        scope.scope + (scope.shared ? ' (fleet)' : ''),
        s.source,
        h('td', {}, [badge(`health-${s.health}`, s.health)]),
        breakerCell(s.breaker, state.generatedAt),
        `${bound(s.concurrency)} · ${s.inflightHere} here`,
        bound(s.rpm),
        bound(s.tpm),
        errorsText(s.recentErrors),
      ]),
    );
  });
  return table('Sources', ['Scope', 'Source', 'Health', 'Breaker', 'In flight', 'RPM', 'TPM', 'Recent errors here'], rows);
}

export function tenantsTable(state: ConsoleSnapshot): ViewElement {
  const rows = state.tenants.map((t) =>
    row({ 'data-tenant': t.tenantId, 'data-scope': t.scope }, [
      t.scope,
      t.tenantId === '' ? '(no tenant)' : t.tenantId,
      h('td', {}, [t.atBound ? badge('at-bound', 'at its bound') : badge('within', 'within bounds')]),
      bound(t.concurrency),
      bound(t.rpm),
      bound(t.tpm),
      String(t.waiting),
    ]),
  );
  return table('Tenants', ['Scope', 'Tenant', 'State', 'Concurrency', 'RPM', 'TPM', 'Waiting here'], rows);
}

export function budgetsTable(state: ConsoleSnapshot): ViewElement {
  const rows = state.budgets.map((b) =>
    row({ 'data-budget': `${b.scope}/${b.tenantId ?? ''}` }, [
      b.scope,
      b.tenantId ?? '(scope)',
      usd(b.budgetUsd),
      usd(b.spentUsd),
      usd(b.reservedUsd),
      h('td', { class: 'left' }, [usd(b.leftUsd)]),
      resetText(b.resetAt),
    ]),
  );
  return table('Spend budgets', ['Scope', 'Tenant', 'Budget', 'Spent', 'Reserved', 'Left', 'Resets'], rows);
}

export function failuresTable(state: ConsoleSnapshot): ViewElement {
  const rows = state.failuresHere.map((f) => row({}, [clockTime(f.at), f.scope, f.source || '—', f.errorClass, h('td', { class: 'mono' }, [f.callId])]));
  return table('Recent failed calls', ['Time', 'Scope', 'Source', 'Error class', 'Call id'], rows);
}

/** Each panel a section of its own: its table, or why it could not be read. */
export function panelSections(state: ConsoleSnapshot): ViewElement[] {
  return state.panels.map((panel) => {
    const id = `panel-${panel.id}`;
    const body = panel.table
      ? table(panel.title, panel.table.columns, panel.table.rows.map((cells) => row({}, cells.map(String))))
      : h('p', { class: 'problem' }, [panel.problem ?? '']);
    return h('section', { 'aria-labelledby': id }, [h('h2', { id }, [panel.title]), h('div', { class: 'scroll', role: 'region', 'aria-labelledby': id, tabindex: 0 }, [body])]);
  });
}
