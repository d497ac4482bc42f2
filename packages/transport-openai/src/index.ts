export {
  OpenAICompatTransport,
  DEFAULT_CONNECTIONS,
  DEFAULT_FIRST_TOKEN_MS,
  DEFAULT_INTER_TOKEN_MS,
  type OpenAICompatTransportOptions,
  type StreamWatchdogOptions,
} from './transport.js';
export { SseParser, type SseEvent } from './sse-parser.js';
