/** What the recorder runs for each client: its scenarios, each a run of the client against the capture server. */
import { readFile } from 'node:fs/promises';
import type { Answer } from './answers.js';

export interface Scenario {
  /** The names of the requests the run makes, in order; `null` leaves one out (a turn another scenario records). */
  requests: (string | null)[];
  /** The model's answers, in order (a tool call makes the client send its result turn); then text. */
  answers?: Answer[];
  /** The answer after `answers` (text `ok` unless given: a structured-output call needs JSON). */
  fallback?: Answer;
  /**
   * Runs the client against the capture server's root `url`; resolves to the folders it ran in
   * (scrubbed from the bodies). `script` replaces `answers` (for an answer that names the run's folder).
   */
  run(url: string, script: (answers: readonly Answer[]) => void): Promise<string[] | void>;
}

export interface ClientRecording {
  /** The fixture's name: `packages/wire/test/fixtures/<client>.json`. */
  client: string;
  /** The version of the client package the bodies come from. */
  version(): Promise<string>;
  scenarios: Scenario[];
  /** Keys of the bodies whose objects the client orders differently each run: recorded sorted (see scrub.ts). */
  maps?: string[];
}

/** The key every client is given: never in a body, never checked. */
export const KEY = 'sk-recorder-0000';

/** The function tool every scenario with a tool offers, and the call the model answers with. */
export const WEATHER = {
  name: 'get_weather',
  description: 'The current weather of a city.',
  parameters: { type: 'object' as const, properties: { city: { type: 'string', description: 'The city name.' } }, required: ['city'], additionalProperties: false },
};
export const WEATHER_CALL: Answer = { toolCall: { name: WEATHER.name, arguments: { city: 'Paris' } } };
export const WEATHER_PROMPT = 'What is the weather in Paris?';

/** The structured-output schema, and an answer that fits it. */
export const CITY_SCHEMA = {
  type: 'object' as const,
  properties: { city: { type: 'string' }, country: { type: 'string' } },
  required: ['city', 'country'],
  additionalProperties: false,
};
export const CITY_JSON: Answer = { text: '{"city":"Paris","country":"France"}' };

/** The `version` of the package whose manifest is at `url`. */
export async function manifestVersion(url: URL | string): Promise<string> {
  return (JSON.parse(await readFile(url, 'utf8')) as { version: string }).version;
}
