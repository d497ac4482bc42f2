/** The request's `model` names no scope of `PGW_SERVER__MODELS`. */
export class UnknownModelError extends Error {
  readonly model: string;

  constructor(model: string) {
    super(`The model '${model}' does not exist (not a key of PGW_SERVER__MODELS)`);
    this.name = 'UnknownModelError';
    this.model = model;
  }
}

/** No bearer key, or one that is not configured. */
export class UnauthorizedError extends Error {
  constructor() {
    super('Missing or unknown API key: send Authorization: Bearer <key>');
    this.name = 'UnauthorizedError';
  }
}

/** The server is draining: a new call is refused, and a call still running when the grace ends is ended with this. */
export class ServerDrainingError extends Error {
  constructor() {
    super('The server is shutting down; retry on another instance');
    this.name = 'ServerDrainingError';
  }
}

/** Without API keys, only a request addressed to a loopback name may be served (DNS rebinding). */
export class HostNotAllowedError extends Error {
  constructor() {
    super('This server runs without API keys and answers only requests addressed to a loopback host (localhost, 127.0.0.1, [::1])');
    this.name = 'HostNotAllowedError';
  }
}

/** A stream's reader took no bytes for `PGW_SERVER__WRITE_STALL_S`: the stream is ended and its call cancelled. */
export class WriteStalledError extends Error {
  readonly stalledMs: number;

  constructor(stalledMs: number) {
    super(`the HTTP client read nothing for ${stalledMs} ms (PGW_SERVER__WRITE_STALL_S)`);
    this.name = 'WriteStalledError';
    this.stalledMs = stalledMs;
  }
}

/** The record store of stored responses failed (its Redis is down): the conversation state cannot be read or kept now. */
export class StoredResponsesUnavailableError extends Error {
  constructor(cause: unknown) {
    super('The store of responses is unavailable; retry shortly, or send the whole conversation in input', { cause });
    this.name = 'StoredResponsesUnavailableError';
  }
}

/** `GET` or `DELETE /v1/responses/{id}` of a response not stored for this key (unknown, expired, deleted, or another tenant's). */
export class ResponseNotFoundError extends Error {
  readonly id: string;

  constructor(id: string) {
    super(`Response with id '${id}' not found.`);
    this.name = 'ResponseNotFoundError';
    this.id = id;
  }
}

/** A file or a batch of `/v1/files`, `/v1/batches` that this key's tenant does not have (unknown, or another tenant's). */
export class ObjectNotFoundError extends Error {
  readonly id: string;

  constructor(kind: 'File' | 'Batch', id: string) {
    super(`${kind} with id '${id}' not found.`);
    this.name = 'ObjectNotFoundError';
    this.id = id;
  }
}

/** A message batch still running: its results cannot be read, nor can it be deleted, until it ends. */
export class BatchNotEndedError extends Error {
  readonly id: string;

  constructor(id: string) {
    super(`Message batch '${id}' has not ended yet; cancel it first, or wait until its processing_status is "ended".`);
    this.name = 'BatchNotEndedError';
    this.id = id;
  }
}

/** An upload larger than `PGW_SERVER__MAX_FILE_MB`. */
export class FileTooLargeError extends Error {
  readonly limitMb: number;

  constructor(limitMb: number) {
    super(`The file is larger than PGW_SERVER__MAX_FILE_MB (${limitMb} MiB)`);
    this.name = 'FileTooLargeError';
    this.limitMb = limitMb;
  }
}
