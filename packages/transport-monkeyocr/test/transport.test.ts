import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RequestRejectedError, ResultInvalidError, SourceDeadError, TransientError, type TransientKind } from '@pgw/core';
import { startMockUpstream, type MockUpstream, type Step } from '@pgw/mock-upstream';
import { monkeyOcr } from '../src/index.js';
import { API_KEY, PNG, attemptContext, harness, ocrSource, rejectionOf } from './support.js';

let mock: MockUpstream;
let transport: ReturnType<typeof harness>;
const warnings: string[] = [];

beforeAll(async () => {
  mock = await startMockUpstream({
    script: {
      sources: {
        ocr: {
          ocrText: 'recognised words',
          layout: {
            markdown: '# Title\n\nbody',
            elements: [{ type: 'title', text: 'Title', bbox: [0, 0, 10, 10], page: 0 }],
            files: { 'images/fig-1.txt': 'figure' },
          },
        },
        down: { healthy: false },
        scripted: {},
      },
    },
  });
  transport = harness({ warn: (message) => warnings.push(message) });
});
afterAll(async () => {
  await transport.close();
  await mock.close();
});
beforeEach(() => mock.reset());

describe('recognizeText', () => {
  it('uploads the image as multipart `file` with the option fields and the bearer key', async () => {
    const result = await transport.recognizeText(ocrSource(mock, 'ocr'), PNG, { fields: { lang: 'en' } }, attemptContext());
    expect(result).toEqual({ text: 'recognised words' });
    const [recorded] = mock.requests('ocr');
    expect(recorded?.route).toBe('ocrText');
    expect(recorded?.headers['authorization']).toBe(`Bearer ${API_KEY}`);
    expect(recorded?.form).toEqual({
      fields: { lang: 'en' },
      files: { file: { fileName: 'image.png', type: 'image/png', size: PNG.byteLength } },
    });
  });

  it('honours an explicit file name and type, and sends no Authorization without a key', async () => {
    const source = ocrSource(mock, 'ocr', { apiKey: undefined });
    await transport.recognizeText(source, new Uint8Array([1, 2]), { fileName: 'scan.tiff', mimeType: 'image/tiff' }, attemptContext());
    const [recorded] = mock.requests('ocr');
    expect(recorded?.headers).not.toHaveProperty('authorization');
    expect(recorded?.form?.files['file']).toEqual({ fileName: 'scan.tiff', type: 'image/tiff', size: 2 });
  });

  it('sniffs a PDF upload', async () => {
    const pdf = new TextEncoder().encode('%PDF-1.7\n...');
    await transport.recognizeText(ocrSource(mock, 'ocr'), pdf, {}, attemptContext());
    expect(mock.requests('ocr')[0]?.form?.files['file']).toMatchObject({ fileName: 'document.pdf', type: 'application/pdf' });
  });

  it("rejects a 'file' option field", async () => {
    const error = await rejectionOf(transport.recognizeText(ocrSource(mock, 'ocr'), PNG, { fields: { file: 'x' } }, attemptContext()));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toContain("'file'");
  });

  it('works with a base URL that has a trailing slash', async () => {
    const source = ocrSource(mock, 'ocr', { baseUrl: `${mock.url}/ocr/` });
    expect(await transport.recognizeText(source, PNG, {}, attemptContext())).toEqual({ text: 'recognised words' });
  });
});

describe('parseLayout', () => {
  it('unzips markdown, elements and the other files', async () => {
    const result = await transport.parseLayout(ocrSource(mock, 'ocr'), PNG, {}, attemptContext());
    expect(result.markdown).toBe('# Title\n\nbody');
    expect(result.elements).toEqual([{ type: 'title', text: 'Title', bbox: [0, 0, 10, 10], page: 0 }]);
    expect(Object.keys(result.files ?? {})).toEqual(['images/fig-1.txt']);
    expect(new TextDecoder().decode(result.files?.['images/fig-1.txt'])).toBe('figure');
    expect(mock.requests('ocr')[0]?.headers['accept']).toBe('application/zip');
  });

  it('a body that is not a ZIP is a ResultInvalidError', async () => {
    mock.setSource('scripted', { steps: [{ kind: 'malformed' }] });
    const error = await rejectionOf(transport.parseLayout(ocrSource(mock, 'scripted'), PNG, {}, attemptContext()));
    expect(error).toBeInstanceOf(ResultInvalidError);
    expect((error as ResultInvalidError).issues[0]).toMatch(/not a ZIP/);
  });

  it('a ZIP without result.md / layout.json is a ResultInvalidError naming both', async () => {
    mock.setSource('scripted', { steps: [{ kind: 'malformed', variant: 'wrong_shape' }] });
    const error = (await rejectionOf(transport.parseLayout(ocrSource(mock, 'scripted'), PNG, {}, attemptContext()))) as ResultInvalidError;
    expect(error).toBeInstanceOf(ResultInvalidError);
    expect(error.issues).toEqual(['no result.md in the archive', 'no layout.json in the archive']);
    expect(error.sourceName).toBe('scripted');
  });

  it('layout elements of the wrong shape are a ResultInvalidError with per-element issues', async () => {
    mock.setSource('scripted', { layout: { markdown: 'x', elements: [{ type: 'text' }, { text: 3 }] } });
    const error = (await rejectionOf(transport.parseLayout(ocrSource(mock, 'scripted'), PNG, {}, attemptContext()))) as ResultInvalidError;
    expect(error).toBeInstanceOf(ResultInvalidError);
    expect(error.issues).toEqual(['layout.json[1].type: expected a string', 'layout.json[1].text: expected a string']);
  });
});

describe('checkHealth', () => {
  it('is true for a healthy server and false for a 503', async () => {
    expect(await transport.checkHealth(ocrSource(mock, 'ocr'))).toBe(true);
    expect(await transport.checkHealth(ocrSource(mock, 'down'))).toBe(false);
    expect(mock.counters('ocr').health).toBe(1);
  });

  it('is false for a closed port', async () => {
    const gone = await startMockUpstream({ script: { sources: { ocr: {} } } });
    const source = ocrSource(gone, 'ocr');
    await gone.close();
    expect(await transport.checkHealth(source)).toBe(false);
  });

  it('is false when the server hangs past the timeout', async () => {
    mock.setSource('scripted', { latencyMs: 10_000 });
    expect(await transport.checkHealth(ocrSource(mock, 'scripted', { timeoutMs: 100 }))).toBe(false);
  });

  it("throws the caller's abort instead of answering", async () => {
    const controller = new AbortController();
    controller.abort(new Error('shutting down'));
    const error = await rejectionOf(transport.checkHealth(ocrSource(mock, 'ocr'), controller.signal));
    expect(error.name).toBe('AbortError');
    expect(error.cause).toBe(controller.signal.reason);
  });
});

describe('error translation', () => {
  type Row = { step: Step; category: new (...args: never[]) => Error; status?: number; kind?: TransientKind; retryAfterMs?: number };
  const rows: Array<[string, Row]> = [
    ['429 rate limit with Retry-After', { step: { kind: 'rate_limit', retryAfter: '3' }, category: TransientError, status: 429, kind: 'rate_limited', retryAfterMs: 3000 }],
    ['429 with retry-after-ms', { step: { kind: 'status', status: 429, retryAfterMs: '1500' }, category: TransientError, status: 429, kind: 'rate_limited', retryAfterMs: 1500 }],
    ['429 insufficient_quota', { step: { kind: 'insufficient_quota' }, category: SourceDeadError, status: 429 }],
    ['401', { step: { kind: 'status', status: 401 }, category: SourceDeadError, status: 401 }],
    ['403', { step: { kind: 'status', status: 403 }, category: SourceDeadError, status: 403 }],
    ['404', { step: { kind: 'status', status: 404 }, category: SourceDeadError, status: 404 }],
    ['402 (billing of this source)', { step: { kind: 'status', status: 402 }, category: SourceDeadError, status: 402 }],
    ['302 (a redirecting base URL is misconfigured)', { step: { kind: 'status', status: 302, headers: { location: '/elsewhere' } }, category: SourceDeadError, status: 302 }],
    ['400', { step: { kind: 'status', status: 400 }, category: RequestRejectedError, status: 400 }],
    ['413', { step: { kind: 'status', status: 413 }, category: RequestRejectedError, status: 413 }],
    ['422', { step: { kind: 'status', status: 422 }, category: RequestRejectedError, status: 422 }],
    ['408', { step: { kind: 'status', status: 408 }, category: TransientError, status: 408, kind: 'timeout' }],
    ['500', { step: { kind: 'status', status: 500 }, category: TransientError, status: 500, kind: 'server_error' }],
    ['503', { step: { kind: 'status', status: 503 }, category: TransientError, status: 503, kind: 'server_error' }],
    ['503 with Retry-After', { step: { kind: 'status', status: 503, retryAfter: '4' }, category: TransientError, status: 503, kind: 'server_error', retryAfterMs: 4000 }],
    ['truncated body', { step: { kind: 'truncate' }, category: TransientError, kind: 'network' }],
    ['unparseable 200', { step: { kind: 'malformed' }, category: ResultInvalidError, status: 200 }],
    ['200 without text', { step: { kind: 'malformed', variant: 'wrong_shape' }, category: ResultInvalidError, status: 200 }],
  ];

  it.each(rows)('%s', async (_name, row) => {
    mock.setSource('scripted', { steps: [row.step] });
    const error = await rejectionOf(transport.recognizeText(ocrSource(mock, 'scripted'), PNG, {}, attemptContext()));
    expect(error).toBeInstanceOf(row.category);
    const fields = error as TransientError;
    expect(fields.sourceName).toBe('scripted');
    expect(fields.statusCode).toBe(row.status);
    if (row.kind) expect(fields.transientKind).toBe(row.kind);
    if (row.retryAfterMs !== undefined) expect(fields.retryAfterMs).toBe(row.retryAfterMs);
    expect(error.message).not.toContain(API_KEY);
  });

  it('keeps the folded body in bodyText and the message', async () => {
    mock.setSource('scripted', { steps: [{ kind: 'status', status: 400, body: '{"detail":\n  "image too small"}' }] });
    const error = (await rejectionOf(transport.recognizeText(ocrSource(mock, 'scripted'), PNG, {}, attemptContext()))) as RequestRejectedError;
    expect(error.bodyText).toBe('{"detail": "image too small"}');
    expect(error.message).toContain('image too small');
  });

  it('masks the API key when the upstream echoes it back', async () => {
    mock.setSource('scripted', {
      steps: [{ kind: 'status', status: 401, body: { error: { message: `invalid key Bearer ${API_KEY}` } } }],
    });
    const error = (await rejectionOf(transport.recognizeText(ocrSource(mock, 'scripted'), PNG, {}, attemptContext()))) as SourceDeadError;
    expect(error).toBeInstanceOf(SourceDeadError);
    expect(error.message).not.toContain(API_KEY);
    expect(error.bodyText).not.toContain(API_KEY);
    expect(error.bodyText).toContain('Bearer [redacted]');
    expect(JSON.stringify(error)).not.toContain(API_KEY);
  });

  it('a connection refused is a TransientError(network)', async () => {
    const gone = await startMockUpstream({ script: { sources: { ocr: {} } } });
    const source = ocrSource(gone, 'ocr');
    await gone.close();
    const error = (await rejectionOf(transport.recognizeText(source, PNG, {}, attemptContext()))) as TransientError;
    expect(error).toBeInstanceOf(TransientError);
    expect(error.transientKind).toBe('network');
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('a non-finite Retry-After is no hint, with one warning', async () => {
    warnings.length = 0;
    mock.setSource('scripted', { steps: [{ kind: 'rate_limit', retryAfter: 'inf' }] });
    const error = (await rejectionOf(transport.recognizeText(ocrSource(mock, 'scripted'), PNG, {}, attemptContext()))) as TransientError;
    expect(error.retryAfterMs).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('retry_after_not_finite');
  });
});

describe('configuration errors', () => {
  it('rejects a non-positive timeoutMs', async () => {
    const badTimeout = await rejectionOf(transport.recognizeText(ocrSource(mock, 'ocr', { timeoutMs: 0 }), PNG, {}, attemptContext()));
    expect(badTimeout).toBeInstanceOf(RangeError);
    expect(badTimeout.message).toContain('timeoutMs');
  });

  it.each([
    [{ baseUrl: 'not a url :secret@' }, 'monkeyOcr(options.baseUrl)'],
    [{ model: '' }, 'monkeyOcr(options.model)'],
    [{ maxResponseBytes: -1 }, 'monkeyOcr(options.maxResponseBytes)'],
    [{ dispatcher: 'agent' }, 'monkeyOcr(options.dispatcher)'],
    [{ headers: { 'content-type': 'x' } }, 'monkeyOcr(options.headers)'],
    [{ apiKey: 'secret\r\n' }, 'monkeyOcr(options.apiKey)'],
    [{ warn: 1 }, 'monkeyOcr(options.warn)'],
  ])('rejects %o naming %s without echoing a value', (options, key) => {
    const error = (() => {
      try {
        monkeyOcr({ baseUrl: 'http://127.0.0.1:9', ...(options as object) });
      } catch (e) {
        return e as Error;
      }
      throw new Error('expected a failure');
    })();
    expect(error.message).toContain(key);
    expect(error.message).not.toContain('secret');
  });

  it('is a model of the port: provider, model name', () => {
    expect(monkeyOcr({ baseUrl: 'http://127.0.0.1:9' })).toMatchObject({ specificationVersion: 'pgw-model-v1', provider: 'monkeyocr', modelId: 'monkeyocr' });
    expect(monkeyOcr({ baseUrl: 'http://127.0.0.1:9', model: 'monkeyocr-pro' }).modelId).toBe('monkeyocr-pro');
  });
});
