/** The tenant label of /metrics: the N busiest tenants by name, every other one `other`, whatever the number of tenants. */
import { SettingsError } from '@pgw/client';
import { describe, expect, it } from 'vitest';
import { loadServerSettings } from '../src/index.js';
import { ServerMetrics } from '../src/operations/metrics.js';
import { TenantLabels } from '../src/operations/tenant-labels.js';
import { startHarness } from './helpers.js';

const tenantValues = (text: string, metric: string) =>
  new Set([...text.matchAll(new RegExp(`^${metric}\\{[^}]*tenant="([^"]*)"`, 'gm'))].map((match) => match[1]!));

describe('TenantLabels', () => {
  it('names the busiest tenants even when they come after a crowd, and displaces the one they overtake', () => {
    const displaced: string[] = [];
    const labels = new TenantLabels(2, (tenant) => displaced.push(tenant));
    expect(labels.labelOf('early-a')).toBe('early-a');
    expect(labels.labelOf('early-b')).toBe('early-b');
    for (let i = 0; i < 50; i += 1) labels.labelOf(`crowd-${i}`);
    expect(labels.labelOf('busy')).toBe('other');
    expect(labels.labelOf('busy')).toBe('busy');
    expect(displaced).toHaveLength(1);
    expect(labels.labelOf('')).toBe('other');
  });

  it('labels everything other with a bound of 0, and the tenant "" as (none)', () => {
    expect(new TenantLabels(0).labelOf('a')).toBe('other');
    expect(new TenantLabels(1).labelOf('')).toBe('(none)');
  });
});

describe('the tenant metrics', () => {
  it.each([1, 5, 20])('give 1,000 distinct tenants at most %i + 1 label values', async (limit) => {
    const metrics = new ServerMetrics(limit);
    // Some busy tenants among a thousand that call once or twice, in an order that keeps changing who leads.
    for (let round = 0; round < 3; round += 1) {
      for (let i = 0; i < 1000; i += 1) {
        metrics.tenantRequest(`tenant-${(i * 7919 + round) % 1000}`, i % 2 === 0 ? 'interactive' : 'batch', i % 10 === 0 ? 'rate_limited' : 'ok', i);
        if (i % 4 === 0) metrics.tenantRequest('busy', 'batch', 'ok', 5);
      }
    }
    const text = await metrics.text();
    for (const metric of ['pgw_tenant_requests_total', 'pgw_tenant_admission_wait_seconds_count']) {
      const values = tenantValues(text, metric);
      expect(values.size, metric).toBeLessThanOrEqual(limit + 1);
      expect(values).toContain('other');
    }
    expect(tenantValues(text, 'pgw_tenant_requests_total')).toContain('busy');
  });
});

describe('the tenant metrics of a real server', () => {
  it('count each key’s requests by priority and outcome, naming only the busiest with PGW_SERVER__METRICS_TENANTS=1', async () => {
    const keys = { 'sk-busy-00000001': 'team-busy', 'sk-idle-00000002': { tenant: 'team-idle', priority: 'batch' } };
    const h = await startHarness(undefined, { PGW_SERVER__KEYS: JSON.stringify(keys), PGW_SERVER__METRICS_TENANTS: '1', PGW_SERVER__METRICS_KEYS: JSON.stringify(['sk-scrape-0000001']) });
    try {
      const ask = (key: string, model = 'gpt-4o-mini') => h.openai(key).chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }).catch(() => undefined);
      for (let i = 0; i < 3; i += 1) await ask('sk-busy-00000001');
      await ask('sk-idle-00000002');
      expect(h.server.settings.metricsTenants).toBe(1);
      const text = await (await fetch(`${h.url}/metrics`, { headers: { authorization: 'Bearer sk-scrape-0000001' } })).text();
      expect(text).toMatch(/^pgw_tenant_requests_total\{tenant="team-busy",priority="interactive",outcome="ok"\} 3$/m);
      expect(text).toMatch(/^pgw_tenant_requests_total\{tenant="other",priority="batch",outcome="ok"\} 1$/m);
      expect(text).toMatch(/^pgw_tenant_admission_wait_seconds_count\{tenant="team-busy",priority="interactive"\} 3$/m);
      expect(text).not.toContain('team-idle');
    } finally {
      await h.close();
    }
  });
});

describe('PGW_SERVER__METRICS_TENANTS', () => {
  it.each(['-1', '2.5', 'many', '1001'])('refuses %s naming the key', (value) => {
    expect(() => loadServerSettings({ PGW_SERVER__METRICS_TENANTS: value })).toThrow(SettingsError);
    expect(() => loadServerSettings({ PGW_SERVER__METRICS_TENANTS: value })).toThrow(/PGW_SERVER__METRICS_TENANTS/);
  });

  it('defaults to 20', () => {
    expect(loadServerSettings({}).metricsTenants).toBe(20);
  });
});
