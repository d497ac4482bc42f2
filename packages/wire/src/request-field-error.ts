/** A request field refused before anything is sent upstream; `param` is the field's path in the protocol's body. */
export class InvalidRequestFieldError extends TypeError {
  readonly param: string;
  /** What is wrong with the field, without its name. */
  readonly problem: string;

  constructor(param: string, problem: string) {
    super(`${param} ${problem}`);
    this.name = 'InvalidRequestFieldError';
    this.param = param;
    this.problem = problem;
  }

  /** The same refusal of a body that sits at `path` inside another (a batch's request: `requests[3].params`). */
  within(path: string): InvalidRequestFieldError {
    return new InvalidRequestFieldError(this.param === 'body' ? path : `${path}.${this.param}`, this.problem);
  }
}
