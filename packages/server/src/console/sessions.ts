/**
 * The console's logins: a session is a random id (32 bytes) the browser keeps in an `HttpOnly`,
 * `SameSite=Strict` cookie scoped to `/ui`, mapped here to its expiry. Nothing but the id travels;
 * the map is bounded (the oldest login goes first) and expired entries are dropped as they are met,
 * so no timer runs. Failed logins are counted in a one-minute window: past the limit every login is
 * refused until the window passes, which bounds guessing to a few keys a minute whoever asks.
 */
import { randomBytes } from 'node:crypto';

export const SESSION_COOKIE = 'pgw_console';
const MAX_SESSIONS = 1000;
export const MAX_FAILED_LOGINS_PER_MINUTE = 10;
const MINUTE_MS = 60_000;

export class ConsoleSessions {
  /** Session id → expiry (ms since epoch); oldest first. */
  readonly #sessions = new Map<string, number>();
  readonly #ttlMs: number;
  readonly #now: () => number;
  #failures: number[] = [];

  constructor(ttlMs: number, now: () => number = Date.now) {
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  /** A new session; its id goes in the cookie. */
  open(): { id: string; maxAgeS: number } {
    const id = randomBytes(32).toString('base64url');
    this.#sessions.set(id, this.#now() + this.#ttlMs);
    if (this.#sessions.size > MAX_SESSIONS) this.#sessions.delete(this.#sessions.keys().next().value!);
    return { id, maxAgeS: Math.floor(this.#ttlMs / 1000) };
  }

  /** Whether the cookie header carries a live session. */
  valid(cookieHeader: string | undefined): boolean {
    const id = sessionIdOf(cookieHeader);
    if (id === undefined) return false;
    const expiry = this.#sessions.get(id);
    if (expiry === undefined) return false;
    if (expiry > this.#now()) return true;
    this.#sessions.delete(id);
    return false;
  }

  end(cookieHeader: string | undefined): void {
    const id = sessionIdOf(cookieHeader);
    if (id !== undefined) this.#sessions.delete(id);
  }

  /** Whether a login may be tried now (fewer than the limit failed in the last minute). */
  mayTry(): boolean {
    const since = this.#now() - MINUTE_MS;
    this.#failures = this.#failures.filter((at) => at > since);
    return this.#failures.length < MAX_FAILED_LOGINS_PER_MINUTE;
  }

  failed(): void {
    this.#failures.push(this.#now());
  }
}

/** The session id of a `Cookie` header, when it carries one of the right shape. */
function sessionIdOf(cookieHeader: string | undefined): string | undefined {
  if (cookieHeader === undefined || cookieHeader.length > 8192) return undefined;
  for (const part of cookieHeader.split(';')) {
    const [name, value] = part.trim().split('=', 2);
    if (name === SESSION_COOKIE && value !== undefined && /^[A-Za-z0-9_-]{43}$/.test(value)) return value;
  }
  return undefined;
}
