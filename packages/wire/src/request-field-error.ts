/** A request field refused before anything is sent upstream; `param` is the field's path in the protocol's body. */
export class InvalidRequestFieldError extends TypeError {
  readonly param: string;

  constructor(param: string, problem: string) {
    super(`${param} ${problem}`);
    this.name = 'InvalidRequestFieldError';
    this.param = param;
  }
}
