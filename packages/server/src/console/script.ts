/**
 * `/ui/app.js`: the console's only script, plain browser JavaScript (no framework, nothing fetched
 * from elsewhere). It listens to `/ui/events` (EventSource reconnects by itself) and redraws each
 * section from the state it receives. Every value is written with `textContent` or as an SVG
 * attribute it sets itself, never parsed as markup. Kept as a string so the package ships no
 * separate asset; the page's CSP allows exactly this script.
 */
export const CONSOLE_SCRIPT = String.raw`'use strict';
(function () {
  var SVG = 'http://www.w3.org/2000/svg';

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    for (var name in attrs || {}) node.setAttribute(name, attrs[name]);
    (children || []).forEach(function (child) {
      node.append(typeof child === 'string' || typeof child === 'number' ? String(child) : child);
    });
    return node;
  }

  function table(caption, head, rows) {
    if (rows.length === 0) return el('p', { class: 'empty' }, ['No ' + caption.toLowerCase() + '.']);
    var thead = el('thead', {}, [el('tr', {}, head.map(function (h) { return el('th', { scope: 'col' }, [h]); }))]);
    var tbody = el('tbody', {}, rows);
    return el('table', {}, [el('caption', { class: 'visually-hidden' }, [caption]), thead, tbody]);
  }

  function row(attrs, cells) {
    return el('tr', attrs, cells.map(function (cell) { return cell instanceof Node && cell.nodeName === 'TD' ? cell : el('td', {}, [cell]); }));
  }

  function bound(use) {
    return use.bound > 0 ? use.used + ' / ' + use.bound : use.used + ' (no bound)';
  }

  function usd(value) {
    return '$' + value.toFixed(value < 1 ? 4 : 2);
  }

  function time(ms) {
    return new Date(ms).toLocaleTimeString();
  }

  function breakerCell(breaker, now) {
    if (!breaker) return el('td', { class: 'breaker' }, ['unknown']);
    var text = breaker.state;
    if (breaker.state === 'open' && breaker.openUntil > now) text += ' · ' + Math.ceil((breaker.openUntil - now) / 1000) + ' s left';
    return el('td', { class: 'breaker' }, [el('span', { class: 'badge state-' + breaker.state }, [text])]);
  }

  function errorsText(errors) {
    return errors.length === 0 ? '—' : errors.map(function (e) { return e.errorClass + ' ×' + e.count; }).join(', ');
  }

  function fill(id, node) {
    document.getElementById(id).replaceChildren(node);
  }

  function drawSources(state) {
    var rows = [];
    state.scopes.forEach(function (scope) {
      if (scope.problem) {
        rows.push(row({ 'data-scope': scope.scope }, [scope.scope, '—', '—', el('td', { class: 'problem', colspan: '6' }, [scope.problem])]));
        return;
      }
      scope.sources.forEach(function (s) {
        rows.push(row({ 'data-scope': scope.scope, 'data-source': s.source }, [
          scope.scope + (scope.shared ? ' (fleet)' : ''),
          s.source,
          el('td', {}, [el('span', { class: 'badge health-' + s.health }, [s.health])]),
          breakerCell(s.breaker, state.generatedAt),
          bound(s.concurrency) + ' · ' + s.inflightHere + ' here',
          bound(s.rpm),
          bound(s.tpm),
          errorsText(s.recentErrors),
        ]));
      });
    });
    fill('sources', table('Sources', ['Scope', 'Source', 'Health', 'Breaker', 'In flight', 'RPM', 'TPM', 'Recent errors here'], rows));
  }

  function drawTenants(state) {
    var rows = state.tenants.map(function (t) {
      return row({ 'data-tenant': t.tenantId, 'data-scope': t.scope }, [
        t.scope,
        t.tenantId === '' ? '(no tenant)' : t.tenantId,
        el('td', {}, [el('span', { class: 'badge ' + (t.atBound ? 'at-bound' : 'within') }, [t.atBound ? 'at its bound' : 'within bounds'])]),
        bound(t.concurrency),
        bound(t.rpm),
        bound(t.tpm),
        String(t.waiting),
      ]);
    });
    fill('tenants', table('Tenants', ['Scope', 'Tenant', 'State', 'Concurrency', 'RPM', 'TPM', 'Waiting here'], rows));
  }

  function drawBudgets(state) {
    var rows = state.budgets.map(function (b) {
      return row({ 'data-budget': b.scope + '/' + (b.tenantId || '') }, [
        b.scope,
        b.tenantId === undefined ? '(scope)' : b.tenantId,
        usd(b.budgetUsd),
        usd(b.spentUsd),
        usd(b.reservedUsd),
        el('td', { class: 'left' }, [usd(b.leftUsd)]),
        b.resetAt === undefined || b.resetAt === null ? 'never (total)' : new Date(b.resetAt).toLocaleString(),
      ]);
    });
    fill('budgets', table('Spend budgets', ['Scope', 'Tenant', 'Budget', 'Spent', 'Reserved', 'Left', 'Resets'], rows));
  }

  function drawFailures(state) {
    var rows = state.failuresHere.map(function (f) {
      return row({}, [time(f.at), f.scope, f.source || '—', f.errorClass, el('td', { class: 'mono' }, [f.callId])]);
    });
    fill('failures', table('Recent failed calls', ['Time', 'Scope', 'Source', 'Error class', 'Call id'], rows));
  }

  function drawPanels(state) {
    var holder = document.getElementById('panels');
    holder.replaceChildren.apply(holder, state.panels.map(function (panel) {
      var id = 'panel-' + panel.id;
      var body = panel.table
        ? table(panel.title, panel.table.columns, panel.table.rows.map(function (cells) { return row({}, cells.map(String)); }))
        : el('p', { class: 'problem' }, [panel.problem || '']);
      return el('section', { 'aria-labelledby': id }, [el('h2', { id: id }, [panel.title]), el('div', { class: 'scroll', role: 'region', 'aria-labelledby': id, tabindex: '0' }, [body])]);
    }));
  }

  // A small line chart: one polyline per series, the y axis from 0 to the largest value.
  function chart(title, unit, lines, points) {
    var width = 300, height = 90, pad = 4;
    var max = 0;
    lines.forEach(function (line) { points.forEach(function (p) { var v = line.value(p); if (v !== undefined && v > max) max = v; }); });
    var svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
    svg.setAttribute('aria-hidden', 'true');
    svg.setAttribute('focusable', 'false');
    var axis = document.createElementNS(SVG, 'line');
    [['x1', pad], ['x2', width - pad], ['y1', height - pad], ['y2', height - pad], ['class', 'axis']].forEach(function (a) { axis.setAttribute(a[0], a[1]); });
    svg.append(axis);
    var summary = [];
    lines.forEach(function (line) {
      var coords = [];
      points.forEach(function (p, i) {
        var v = line.value(p);
        if (v === undefined) return;
        var x = pad + (i * (width - 2 * pad)) / Math.max(1, points.length - 1);
        var y = height - pad - (max > 0 ? (v / max) * (height - 2 * pad) : 0);
        coords.push(x.toFixed(1) + ',' + y.toFixed(1));
      });
      var poly = document.createElementNS(SVG, 'polyline');
      // A lone point is no line: it is drawn as a short dash so a single busy step still shows.
      if (coords.length === 1) coords.push(coords[0].replace(/^([\d.]+)/, function (x) { return String(Number(x) + 3); }));
      poly.setAttribute('points', coords.join(' '));
      poly.setAttribute('class', 'line ' + line.css);
      svg.append(poly);
      var last = points.length > 0 ? line.value(points[points.length - 1]) : undefined;
      summary.push(line.name + ' now ' + (last === undefined ? '—' : format(last) + unit));
    });
    summary.push('peak ' + format(max) + unit);
    var legend = el('p', { class: 'legend' }, [summary.join(' · ')]);
    return el('figure', { class: 'chart' }, [el('figcaption', {}, [title]), svg, legend]);
  }

  function format(value) {
    return value >= 100 ? String(Math.round(value)) : value.toFixed(value >= 10 ? 1 : 2);
  }

  function drawCharts(state) {
    var points = state.seriesHere.points;
    var perS = state.seriesHere.bucketMs / 1000;
    document.getElementById('charts').replaceChildren(
      chart('Calls per second', '/s', [{ name: 'calls', css: 'calls', value: function (p) { return p.calls / perS; } }], points),
      chart('Error rate', '%', [{ name: 'errors', css: 'errors', value: function (p) { return p.calls === 0 ? 0 : (100 * p.errors) / p.calls; } }], points),
      chart('Latency', ' ms', [
        { name: 'p50', css: 'p50', value: function (p) { return p.p50Ms === null ? undefined : p.p50Ms; } },
        { name: 'p99', css: 'p99', value: function (p) { return p.p99Ms === null ? undefined : p.p99Ms; } },
      ], points),
    );
  }

  function draw(state) {
    drawCharts(state);
    drawSources(state);
    drawTenants(state);
    drawBudgets(state);
    drawFailures(state);
    drawPanels(state);
    say(state.draining ? 'Draining: the server is shutting down' : 'Live');
    document.getElementById('updated').textContent = 'Updated ' + time(state.generatedAt);
  }

  // The status line is a live region: written only when it changes, so a screen reader is not told every second.
  function say(text) {
    var status = document.getElementById('status');
    if (status.textContent !== text) status.textContent = text;
  }

  function connect() {
    var events = new EventSource('/ui/events');
    events.addEventListener('state', function (event) { draw(JSON.parse(event.data)); });
    events.addEventListener('error', function () {
      say('Disconnected: reconnecting…');
      // A closed stream that the server refused (signed out, drained) is not retried by the browser.
      if (events.readyState === EventSource.CLOSED) setTimeout(function () { location.reload(); }, 5000);
    });
  }

  document.addEventListener('DOMContentLoaded', connect);
})();
`;
