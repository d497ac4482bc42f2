import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../src/index.js';

let mock: MockUpstream;

beforeAll(async () => {
  mock = await startMockUpstream({
    script: {
      sources: {
        ocr: { ocrText: 'recognised words' },
        layouts: {
          layout: {
            markdown: '# Title\n\nbody',
            elements: [{ type: 'title', text: 'Title', bbox: [0, 0, 10, 10], page: 0 }],
            files: { 'images/fig-1.txt': 'figure' },
          },
        },
        down: { healthy: false },
      },
    },
  });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

function upload(extra: Record<string, string> = {}): FormData {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' }), 'page.png');
  for (const [name, value] of Object.entries(extra)) form.append(name, value);
  return form;
}

describe('MonkeyOCR routes', () => {
  it('/ocr/text answers { text } and records the form', async () => {
    const res = await fetch(`${mock.url}/ocr/ocr/text`, { method: 'POST', body: upload({ lang: 'en' }) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ text: 'recognised words' });
    const [recorded] = mock.requests('ocr');
    expect(recorded?.route).toBe('ocrText');
    expect(recorded?.body).toEqual(['lang', 'file']);
    expect(recorded?.form).toEqual({
      fields: { lang: 'en' },
      files: { file: { fileName: 'page.png', type: 'image/png', size: 4 } },
    });
    expect(mock.counters('ocr')).toMatchObject({ ocrText: 1, total: 1 });
  });

  it('/parse returns a ZIP with result.md, layout.json and extra files', async () => {
    const res = await fetch(`${mock.url}/layouts/parse`, { method: 'POST', body: upload() });
    expect(res.headers.get('content-type')).toBe('application/zip');
    const entries = unzipSync(new Uint8Array(await res.arrayBuffer()));
    expect(strFromU8(entries['result.md']!)).toBe('# Title\n\nbody');
    expect(JSON.parse(strFromU8(entries['layout.json']!))).toEqual([{ type: 'title', text: 'Title', bbox: [0, 0, 10, 10], page: 0 }]);
    expect(strFromU8(entries['images/fig-1.txt']!)).toBe('figure');
  });

  it('/parse default layout round-trips', async () => {
    const res = await fetch(`${mock.url}/ocr/parse`, { method: 'POST', body: upload() });
    const entries = unzipSync(new Uint8Array(await res.arrayBuffer()));
    expect(strFromU8(entries['result.md']!)).toContain('layout from ocr');
    expect(JSON.parse(strFromU8(entries['layout.json']!))[0]).toMatchObject({ type: 'title', page: 0 });
  });

  it('a missing file is a 422', async () => {
    const form = new FormData();
    form.append('lang', 'en');
    const res = await fetch(`${mock.url}/ocr/ocr/text`, { method: 'POST', body: form });
    expect(res.status).toBe(422);
  });

  it('malformed /parse sends bytes that are not a ZIP', async () => {
    mock.setSource('ocr', { steps: [{ kind: 'malformed' }] });
    const res = await fetch(`${mock.url}/ocr/parse`, { method: 'POST', body: upload() });
    expect(res.status).toBe(200);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(() => unzipSync(bytes)).toThrow();
  });

  it('OCR steps are one queue shared by /ocr/text and /parse', async () => {
    mock.setSource('ocr', { steps: [{ kind: 'status', status: 500 }, { kind: 'status', status: 502 }] });
    const first = await fetch(`${mock.url}/ocr/ocr/text`, { method: 'POST', body: upload() });
    const second = await fetch(`${mock.url}/ocr/parse`, { method: 'POST', body: upload() });
    const third = await fetch(`${mock.url}/ocr/parse`, { method: 'POST', body: upload() });
    expect([first.status, second.status, third.status]).toEqual([500, 502, 200]);
    await Promise.all([first.text(), second.text(), third.arrayBuffer()]);
  });

  it('GET /health answers ok, or 503 when scripted unhealthy', async () => {
    const ok = await fetch(`${mock.url}/ocr/health`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ status: 'ok' });
    const down = await fetch(`${mock.url}/down/health`);
    expect(down.status).toBe(503);
    await down.text();
    expect(mock.counters('ocr').health).toBe(1);
  });
});
