import { strToU8, zipSync } from 'fflate';
import { jsonPayload, rawJsonPayload, sendJson, type Exchange, type Payload } from './exchange.js';
import type { ParsedForm } from './multipart.js';
import { playStep, sendWholeOrCut, type RouteStep } from './steps.js';
import type { ScriptLayout } from './types.js';

/** FastAPI's answer to a missing upload, as a MonkeyOCR server gives it. */
function missingFile(ex: Exchange): void {
  sendJson(ex.res, 422, { detail: [{ loc: ['body', 'file'], msg: 'Field required', type: 'missing' }] });
}

/** `POST /{source}/ocr/text` (multipart `file`) → `{ text }`. */
export async function handleOcrText(ex: Exchange, form: ParsedForm | undefined): Promise<void> {
  if (!form?.files['file']) return missingFile(ex);
  const text = ex.source.script.ocrText ?? `ocr text from ${ex.source.name}`;
  await playStep(ex, ex.source.nextStep('ocr'), (e, step) =>
    sendWholeOrCut(e, step, jsonPayload({ text }), malformedText(step), ['{"text":"', '"}']),
  );
}

/** `POST /{source}/parse` (multipart `file`) → ZIP with `result.md` and `layout.json`. */
export async function handleParse(ex: Exchange, form: ParsedForm | undefined): Promise<void> {
  if (!form?.files['file']) return missingFile(ex);
  const layout = ex.source.script.layout ?? defaultLayout(ex.source.name);
  await playStep(ex, ex.source.nextStep('ocr'), (e, step) => sendWholeOrCut(e, step, layoutZip(layout), malformedZip(step)));
}

/** `GET /{source}/health`. */
export function handleHealth(ex: Exchange): void {
  if (ex.source.script.healthy === false) sendJson(ex.res, 503, { status: 'unavailable' });
  else sendJson(ex.res, 200, { status: 'ok' });
}

export function defaultLayout(source: string): ScriptLayout {
  return {
    markdown: `# Page 1\n\nlayout from ${source}\n`,
    elements: [
      { type: 'title', text: 'Page 1', bbox: [10, 10, 200, 40], page: 0 },
      { type: 'text', text: `layout from ${source}`, bbox: [10, 50, 400, 80], page: 0 },
    ],
  };
}

function zipPayload(entries: Record<string, Uint8Array>): Payload {
  return { contentType: 'application/zip', bytes: zipSync(entries) };
}

function layoutZip(layout: ScriptLayout): Payload {
  const extra = Object.fromEntries(Object.entries(layout.files ?? {}).map(([path, text]) => [path, strToU8(text)]));
  return zipPayload({
    ...extra,
    'result.md': strToU8(layout.markdown),
    'layout.json': strToU8(JSON.stringify(layout.elements)),
  });
}

function malformedText(step: RouteStep): Payload {
  if (step.kind === 'malformed' && step.variant === 'wrong_shape') return jsonPayload({ result: 42 });
  return rawJsonPayload('{"text": "unterminated');
}

function malformedZip(step: RouteStep): Payload {
  if (step.kind === 'malformed' && step.variant === 'wrong_shape') return zipPayload({ 'readme.txt': strToU8('no result here') });
  return { contentType: 'application/zip', bytes: Buffer.from('this is not a zip archive') };
}
