import { sendJson, type Exchange } from './exchange.js';

/** `GET /{source}/v1/models`: the model list OpenAI-compatible servers answer; one entry named after the source. */
export function handleModels(ex: Exchange): void {
  sendJson(ex.res, 200, { object: 'list', data: [{ id: ex.source.name, object: 'model', owned_by: 'mock-upstream' }] });
}
