/** An `/embeddings` body: vectors in input order, checked for count and shape. */
import type { Usage } from '@pgw/core';
import { parseAnswerBody } from './answer-json.js';
import { invalidAnswer, type AnswerOrigin } from './error-translation.js';
import { isRecord } from './json.js';
import { measuredEmbedUsage } from './usage.js';

export interface EmbedAnswer {
  vectors: number[][];
  /** Measured usage; undefined when the upstream reported none. */
  usage?: Usage;
}

export function parseEmbeddings(body: string, origin: AnswerOrigin, inputCount: number): EmbedAnswer {
  const json = parseAnswerBody(body, origin, 'data');
  const data = json['data'];
  if (!Array.isArray(data)) throw invalidAnswer(origin, 'data is not an array', body);
  if (data.length !== inputCount) throw invalidAnswer(origin, `${data.length} embeddings for ${inputCount} inputs`, body);
  const vectors: (number[] | undefined)[] = new Array<number[] | undefined>(inputCount).fill(undefined);
  data.forEach((item: unknown, position) => {
    if (!isRecord(item)) throw invalidAnswer(origin, `data[${position}] is not an object`, body);
    const index = item['index'] ?? position;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= inputCount || vectors[index]) {
      throw invalidAnswer(origin, `data[${position}].index is out of range or repeated`, body);
    }
    const embedding = item['embedding'];
    if (!isNumberVector(embedding)) throw invalidAnswer(origin, `data[${position}].embedding is not a non-empty array of finite numbers`, body);
    vectors[index] = embedding;
  });
  const ordered = vectors as number[][];
  const dim = ordered[0]?.length;
  if (ordered.some((vector) => vector.length !== dim)) throw invalidAnswer(origin, 'embeddings differ in dimension', body);
  const usage = measuredEmbedUsage(json['usage']);
  return { vectors: ordered, ...(usage !== undefined && { usage }) };
}

function isNumberVector(value: unknown): value is number[] {
  return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'number' && Number.isFinite(v));
}
