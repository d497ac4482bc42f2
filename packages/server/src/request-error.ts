/** A request field the server refuses before anything is sent upstream; `param` is the field's path in the OpenAI body. */
export class InvalidRequestFieldError extends TypeError {
  readonly param: string;

  constructor(param: string, problem: string) {
    super(`${param} ${problem}`);
    this.name = 'InvalidRequestFieldError';
    this.param = param;
  }
}

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
