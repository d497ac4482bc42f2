/**
 * The admin API refused a request or could not be reached (`status` 0). `param` is the body field the
 * API named (`limits.rpm`), `flag` the `pgw keys` flag that set it (`--rpm`), when there is one.
 */
import { flagOfParam } from './key-flags.js';

export interface AdminApiErrorOptions {
  status: number;
  message: string;
  type?: string | undefined;
  param?: string | undefined;
  code?: string | undefined;
  retryAfterS?: number;
}

export class AdminApiError extends Error {
  readonly status: number;
  readonly type: string | undefined;
  readonly param: string | undefined;
  readonly flag: string | undefined;
  readonly code: string | undefined;
  readonly retryAfterS: number | undefined;

  constructor(options: AdminApiErrorOptions) {
    const flag = options.param === undefined ? undefined : flagOfParam(options.param);
    const named = options.param === undefined ? '' : flag === undefined ? `${options.param}: ` : `${flag} (${options.param}): `;
    const status = options.status === 0 ? '' : `HTTP ${options.status}${options.code === undefined ? '' : ` ${options.code}`}: `;
    super(`${status}${named}${options.message}`);
    this.name = 'AdminApiError';
    this.status = options.status;
    this.type = options.type;
    this.param = options.param;
    this.flag = flag;
    this.code = options.code;
    this.retryAfterS = options.retryAfterS;
  }
}
