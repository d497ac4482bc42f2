/** The console's tables, drawn from a state as the page receives it: what each row shows, as text. */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { budgetsTable, failuresTable, panelSections, row, sourcesTable, table, tenantsTable } from '../src/console/browser/tables.js';
import type { ConsoleSnapshot } from '../src/console/browser/snapshot.js';
import { h } from '../src/console/browser/view.js';
import type { ConsoleState } from '../src/console/state.js';
import { byTag, cellTexts, consoleState, findAll, NOW, received, textOf } from './console-snapshot.js';

const state = received(consoleState());

describe('the console tables', () => {
  it('reads the state the server sends: every ConsoleState fits what the page reads', () => {
    expectTypeOf<ConsoleState>().toExtend<ConsoleSnapshot>();
    expect(received(consoleState()).budgets[0]).not.toHaveProperty('resetAt');
  });

  it('shows each source with its health, breaker time left, bounds, in flight here and recent errors; a scope that failed, its problem', () => {
    const view = sourcesTable(state);
    expect(cellTexts(view)).toEqual([
      ['default (fleet)', 'main', 'down', 'open · 3 s left', '2 / 4 · 1 here', '7 / 60', '900 (no bound)', 'UpstreamHttpError ×3'],
      ['default (fleet)', 'spare', 'unknown', 'unknown', '0 (no bound) · 0 here', '0 (no bound)', '0 (no bound)', '—'],
      ['embed', '—', '—', 'status not readable (RedisError)'],
    ]);
    const rows = findAll(view, byTag('tr')).slice(1);
    expect(rows.map((tr) => tr.attrs)).toEqual([
      { 'data-scope': 'default', 'data-source': 'main' },
      { 'data-scope': 'default', 'data-source': 'spare' },
      { 'data-scope': 'embed' },
    ]);
    expect(findAll(view, byTag('span')).map((span) => span.attrs.class)).toEqual(['badge health-down', 'badge state-open', 'badge health-unknown']);
    expect(rows[2]!.children[3]).toMatchObject({ tag: 'td', attrs: { class: 'problem', colspan: '6' } });
  });

  it('shows a tenant at its bound and the calls without a tenant', () => {
    const view = tenantsTable(state);
    expect(cellTexts(view)).toEqual([
      ['default', 'team-a', 'at its bound', '1 / 1', '1 (no bound)', '10 (no bound)', '2'],
      ['default', '(no tenant)', 'within bounds', '0 (no bound)', '0 (no bound)', '0 (no bound)', '0'],
    ]);
    expect(findAll(view, byTag('tr'))[1]!.attrs).toEqual({ 'data-tenant': 'team-a', 'data-scope': 'default' });
  });

  it('shows budgets in dollars (four decimals under one), what is left, and when each resets', () => {
    const view = budgetsTable(state);
    expect(cellTexts(view)).toEqual([
      ['default', '(scope)', '$5.00', '$1.25', '$0.0100', '$3.74', 'never (total)'],
      ['default', 'team-a', '$0.5000', '$0.1000', '$0.0000', '$0.4000', new Date(NOW + 3_600_000).toLocaleString()],
    ]);
    expect(findAll(view, byTag('tr')).slice(1).map((tr) => tr.attrs['data-budget'])).toEqual(['default/', 'default/team-a']);
  });

  it('shows a failed call by time, scope, source, error class and call id only', () => {
    expect(cellTexts(failuresTable(state))).toEqual([[new Date(NOW - 1_000).toLocaleTimeString(), 'default', 'main', 'UpstreamHttpError', 'call_1']]);
    const unsourced = received(consoleState({ failuresHere: [{ at: NOW, scope: 'default', source: undefined, errorClass: 'NoSourceError', callId: 'call_2' }] }));
    expect(cellTexts(failuresTable(unsourced))[0]![2]).toBe('—');
  });

  it('says so in a line when a table would be empty', () => {
    const empty = received(consoleState({ scopes: [], tenants: [], budgets: [], failuresHere: [] }));
    expect([sourcesTable(empty), tenantsTable(empty), budgetsTable(empty), failuresTable(empty)].map((view) => [view.tag, textOf(view)])).toEqual([
      ['p', 'No sources.'],
      ['p', 'No tenants.'],
      ['p', 'No spend budgets.'],
      ['p', 'No recent failed calls.'],
    ]);
  });

  it('gives a table a caption and column headers for screen readers', () => {
    const view = table('Things', ['A', 'B'], [row({}, ['1', 2])]);
    expect(findAll(view, byTag('caption')).map(textOf)).toEqual(['Things']);
    expect(findAll(view, byTag('th')).map((th) => [th.attrs.scope, textOf(th)])).toEqual([['col', 'A'], ['col', 'B']]);
    expect(cellTexts(view)).toEqual([['1', '2']]);
  });

  it('keeps a cell given as a td, and puts anything else in a plain one', () => {
    const view = row({}, ['text', h('td', { class: 'mono' }, ['id']), h('span', {}, ['badge'])]);
    expect(view.children.map((cell) => [cell, textOf(cell)])).toEqual([
      [{ tag: 'td', svg: false, attrs: {}, children: ['text'] }, 'text'],
      [{ tag: 'td', svg: false, attrs: { class: 'mono' }, children: ['id'] }, 'id'],
      [{ tag: 'td', svg: false, attrs: {}, children: [{ tag: 'span', svg: false, attrs: {}, children: ['badge'] }] }, 'badge'],
    ]);
  });

  it('gives each panel a labelled, scrollable section: its table, or why it could not be read', () => {
    const panels = received(consoleState({
      panels: [
        { id: 'batches', title: 'Batches', table: { columns: ['Job', 'Done'], rows: [['batch_1', 280]] } },
        { id: 'broken', title: 'Broken', problem: 'not readable (TypeError)' },
      ],
    }));
    const [batches, broken] = panelSections(panels);
    expect(batches!.attrs).toEqual({ 'aria-labelledby': 'panel-batches' });
    expect(findAll(batches!, byTag('h2'))).toEqual([{ tag: 'h2', svg: false, attrs: { id: 'panel-batches' }, children: ['Batches'] }]);
    expect(findAll(batches!, byTag('div'))[0]!.attrs).toEqual({ class: 'scroll', role: 'region', 'aria-labelledby': 'panel-batches', tabindex: '0' });
    expect(cellTexts(batches!)).toEqual([['batch_1', '280']]);
    expect(findAll(broken!, byTag('p'))).toEqual([{ tag: 'p', svg: false, attrs: { class: 'problem' }, children: ['not readable (TypeError)'] }]);
  });

  it('writes a value that looks like markup as text', () => {
    const hostile = received(consoleState({ failuresHere: [{ at: NOW, scope: '<img src=x onerror=alert(1)>', source: 'main', errorClass: 'E', callId: 'c' }] }));
    const cell = findAll(failuresTable(hostile), byTag('td'))[1]!;
    expect(cell.children).toEqual(['<img src=x onerror=alert(1)>']);
  });
});
