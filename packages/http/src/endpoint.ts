/**
 * Where a model sends its requests: base URL, credentials, per-source headers and query. Validated
 * once at model creation; errors name the option and never echo a value (header values are secrets).
 */
import type { ModelEndpoint } from '@pgw/core';
import { isRecord } from './json.js';

export interface EndpointOptions {
  /** The API root; a path prefix and a query are kept (e.g. `https://relay.example/openai/v1?tenant=a`). */
  baseUrl: string;
  apiKey?: string;
  /** Header carrying the key. Default `authorization`, which sends `Bearer KEY`; any other sends the raw key. */
  apiKeyHeader?: string;
  /** Added to every request. Values are secrets: redacted from upstream text, never in a message. */
  headers?: Record<string, string>;
  /** Appended to every request URL (overrides a same-named parameter of `baseUrl`). */
  query?: Record<string, string>;
}

/** Where one request goes: an origin for the dispatcher and the path with its query. */
export interface RequestTarget {
  readonly origin: string;
  readonly path: string;
}

export const DEFAULT_API_KEY_HEADER = 'authorization';

/** Headers the wire format or the connection owns: a per-source header may not set them. */
const RESERVED_HEADERS = new Set(['content-type', 'content-length', 'host', 'connection', 'transfer-encoding', 'keep-alive', 'upgrade', 'expect']);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Tab, visible ASCII and Latin-1: what Node and undici accept in a header value. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

export function isHeaderName(name: unknown): name is string {
  return typeof name === 'string' && TOKEN.test(name);
}

/** A legal header value: no CR, LF, NUL or other control character, Latin-1 only. */
export function isHeaderValue(value: unknown): value is string {
  return typeof value === 'string' && FIELD_VALUE.test(value);
}

/** Throws naming `origin` unless `name` may carry the API key. */
export function checkApiKeyHeader(name: unknown, origin: string): string {
  if (!isHeaderName(name)) throw new TypeError(`${origin} must be a legal HTTP header name`);
  const lower = name.toLowerCase();
  if (RESERVED_HEADERS.has(lower)) throw new RangeError(`${origin} may not be '${lower}': the request owns it`);
  return lower;
}

/** Throws naming `origin` (never echoing the key) unless `apiKey` is a legal header value. */
export function checkApiKey(apiKey: unknown, origin: string): string {
  if (typeof apiKey !== 'string') throw new TypeError(`${origin} must be a string`);
  if (!isHeaderValue(apiKey)) {
    throw new TypeError(`${origin} is not a legal HTTP header value (no CR, LF, NUL or other control characters; Latin-1 only)`);
  }
  return apiKey;
}

/**
 * Throws naming `origin` unless `headers` is an object of legal header names to legal values that
 * sets none of content-type, content-length, host (and the connection headers) nor `apiKeyHeader`,
 * each name once whatever its case. Returns the headers with lower-cased names.
 */
export function checkHeaders(headers: unknown, origin: string, apiKeyHeader = DEFAULT_API_KEY_HEADER): Record<string, string> {
  if (!isRecord(headers)) throw new TypeError(`${origin} must be an object of header name → string value`);
  const checked: Record<string, string> = {};
  for (const [position, [name, value]] of Object.entries(headers).entries()) {
    if (!isHeaderName(name)) throw new TypeError(`${origin}: the name of header #${position + 1} is not a legal HTTP header name`);
    const lower = name.toLowerCase();
    if (RESERVED_HEADERS.has(lower)) throw new RangeError(`${origin} may not set '${lower}': the request owns it`);
    if (lower === apiKeyHeader.toLowerCase()) throw new RangeError(`${origin} may not set '${lower}': it carries the API key (use apiKey)`);
    if (Object.hasOwn(checked, lower)) throw new RangeError(`${origin} sets '${lower}' twice`);
    if (!isHeaderValue(value)) {
      throw new TypeError(`${origin}: the value of '${lower}' is not a legal HTTP header value (a string without CR, LF, NUL or other control characters; Latin-1 only)`);
    }
    checked[lower] = value;
  }
  return checked;
}

/** Throws naming `origin` unless `query` is an object of non-empty string keys to string values. */
export function checkQuery(query: unknown, origin: string): Record<string, string> {
  if (!isRecord(query)) throw new TypeError(`${origin} must be an object of parameter name → string value`);
  for (const [name, value] of Object.entries(query)) {
    if (name === '') throw new TypeError(`${origin}: a parameter name may not be empty`);
    if (typeof value !== 'string') throw new TypeError(`${origin}: the value of '${name}' must be a string`);
  }
  return { ...(query as Record<string, string>) };
}

/** Throws naming `origin` (never echoing the URL: it may carry credentials) unless `baseUrl` is an http(s) URL. */
export function checkBaseUrl(baseUrl: unknown, origin: string): URL {
  if (typeof baseUrl !== 'string') throw new TypeError(`${origin} must be a string`);
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`${origin} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RangeError(`${origin} must be an http or https URL, got ${url.protocol}`);
  return url;
}

/** A validated endpoint: what every request of one model carries, and where each route goes. */
export class Endpoint {
  /** The API key and every per-source header value: redacted from any upstream text kept. */
  readonly secrets: readonly string[];
  /** Auth and per-source headers, lower-cased names. */
  readonly headers: Readonly<Record<string, string>>;
  /** Host and port requests go to (what traces call `server.address` / `server.port`). */
  readonly server: ModelEndpoint;
  private readonly base: URL;
  /** Parsed targets by route: building a URL per request is measurable at loopback speed. */
  private readonly targets = new Map<string, RequestTarget>();
  /** A request's own headers merged with the endpoint's, by the own headers' identity (a model passes the same object every time). */
  private readonly merged = new WeakMap<Readonly<Record<string, string>>, Readonly<Record<string, string>>>();

  /** Validates `options`; errors name `${factory}(options.KEY)`. */
  constructor(options: EndpointOptions, factory: string) {
    const name = (key: string) => `${factory}(options.${key})`;
    this.base = checkBaseUrl(options.baseUrl, name('baseUrl'));
    const query = checkQuery(options.query ?? {}, name('query'));
    for (const [key, value] of Object.entries(query)) this.base.searchParams.set(key, value);
    const apiKeyHeader = checkApiKeyHeader(options.apiKeyHeader ?? DEFAULT_API_KEY_HEADER, name('apiKeyHeader'));
    const custom = checkHeaders(options.headers ?? {}, name('headers'), apiKeyHeader);
    const apiKey = options.apiKey === undefined || options.apiKey === '' ? undefined : checkApiKey(options.apiKey, name('apiKey'));
    const auth = apiKey === undefined ? {} : { [apiKeyHeader]: apiKeyHeader === DEFAULT_API_KEY_HEADER ? `Bearer ${apiKey}` : apiKey };
    this.headers = Object.freeze({ ...custom, ...auth });
    this.secrets = [...(apiKey === undefined ? [] : [apiKey]), ...Object.values(custom)].filter((secret) => secret !== '');
    this.server = Object.freeze({
      address: this.base.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: this.base.port === '' ? (this.base.protocol === 'https:' ? 443 : 80) : Number(this.base.port),
    });
  }

  /** The headers a request sends: its own, then the endpoint's (auth and per-source headers win). */
  requestHeaders(own: Readonly<Record<string, string>> | undefined): Readonly<Record<string, string>> {
    if (own === undefined) return this.headers;
    let headers = this.merged.get(own);
    if (headers === undefined) {
      headers = Object.freeze({ ...own, ...this.headers });
      this.merged.set(own, headers);
    }
    return headers;
  }

  /** `{baseUrl}/{route}` with the base URL's path prefix and the merged query. */
  target(route: string): RequestTarget {
    let target = this.targets.get(route);
    if (target === undefined) {
      const search = this.base.searchParams.toString();
      target = { origin: this.base.origin, path: `${this.base.pathname.replace(/\/+$/, '')}/${route}${search === '' ? '' : `?${search}`}` };
      this.targets.set(route, target);
    }
    return target;
  }
}
