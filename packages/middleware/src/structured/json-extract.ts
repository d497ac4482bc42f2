import { jsonrepair } from 'jsonrepair';
import type { ZodType } from 'zod';
import { nullsAsAbsent } from './strict-json-schema.js';

const JSON_FENCE = /```json[^\S\r\n]*\r?\n?([\s\S]*?)```/i;

/**
 * The JSON part of a model's answer: the first ```json fenced block, else the first balanced
 * `{…}` / `[…]` span (brackets inside strings do not count), else — an unclosed span, a bare scalar —
 * the rest of the text for the repairer to try.
 */
export function extractJsonText(answer: string): string {
  const fenced = JSON_FENCE.exec(answer);
  if (fenced) return fenced[1]!.trim();
  const start = answer.search(/[{[]/);
  if (start < 0) return answer.trim();
  const end = balancedEnd(answer, start);
  return (end < 0 ? answer.slice(start) : answer.slice(start, end + 1)).trim();
}

/** Index of the bracket closing the one at `start`, or -1 when the span never closes. */
function balancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i += 1) {
    const ch = text[i]!;
    if (inString) {
      if (ch === '\\') i += 1;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') stack.push('}');
    else if (ch === '[') stack.push(']');
    else if (ch === '}' || ch === ']') {
      if (stack.pop() !== ch) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}

export type StructuredParse = { ok: true; value: unknown } | { ok: false; issues: string[] };

/**
 * Extract, repair (trailing commas, single quotes, prose around…), then validate against `schema`;
 * a `null` where the schema has an optional, non-nullable field counts as absent (strict structured
 * output sends such a field required but nullable).
 */
export function parseStructuredAnswer(answer: string, schema: ZodType): StructuredParse {
  let json: unknown;
  try {
    json = JSON.parse(jsonrepair(extractJsonText(answer)));
  } catch (error) {
    return { ok: false, issues: [`the answer is not JSON: ${error instanceof Error ? error.message : String(error)}`] };
  }
  const result = schema.safeParse(nullsAsAbsent(schema, json));
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    issues: result.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`),
  };
}
