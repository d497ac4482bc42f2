import {
  AllSourcesExhausted,
  CallDeadlineExceeded,
  MissingPackageError,
  RequestRejectedError,
  ResultInvalidError,
  SettingsError,
  SourceNotConfiguredError,
} from '@pgw/client';
import { CommanderError } from 'commander';
import { expect, test } from 'vitest';
import { EXIT, exitCodeFor } from '../src/exit-codes.js';
import { AdminApiError } from '../src/keys/admin-api-error.js';
import { UsageError } from '../src/usage-error.js';

test('each outcome class maps to its documented exit code', () => {
  const cases: Array<[unknown, number]> = [
    [new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)'), EXIT.ok],
    [new CommanderError(0, 'commander.version', '0.1.0'), EXIT.ok],
    [new CommanderError(1, 'commander.unknownOption', "error: unknown option '--x'"), EXIT.usage],
    [new UsageError('--file', 'cannot read x (ENOENT)'), EXIT.usage],
    [new SettingsError({ key: 'LLM__SOURCE__A__RPM', problem: 'is not a number' }), EXIT.config],
    [new SourceNotConfiguredError({ scope: 'LLM', sourceName: 'a' }), EXIT.config],
    [new MissingPackageError('@pgw/backend-redis', 'PGW_LIMITER_BACKEND=redis', undefined), EXIT.config],
    [new AllSourcesExhausted({ scope: 'LLM' }), EXIT.callFailed],
    [new RequestRejectedError({ message: '400' }), EXIT.callFailed],
    [new ResultInvalidError({ message: 'bad shape' }), EXIT.callFailed],
    [new CallDeadlineExceeded({ scope: 'LLM', deadlineMs: 1000 }), EXIT.callFailed],
    [new AdminApiError({ status: 400, message: 'bad', param: 'limits.rpm' }), EXIT.usage],
    [new AdminApiError({ status: 422, message: 'bad' }), EXIT.usage],
    [new AdminApiError({ status: 401, message: 'no admin key' }), EXIT.config],
    [new AdminApiError({ status: 403, message: 'a tenant key' }), EXIT.config],
    [new AdminApiError({ status: 404, message: 'no such key' }), EXIT.callFailed],
    [new AdminApiError({ status: 429, message: 'throttled' }), EXIT.callFailed],
    [new AdminApiError({ status: 0, message: 'unreachable' }), EXIT.callFailed],
    [new Error('anything else'), EXIT.callFailed],
  ];
  for (const [error, code] of cases) expect(exitCodeFor(error), String(error)).toBe(code);
  expect(Object.values(EXIT)).toEqual([0, 1, 2, 3, 4, 5, 130, 143]);
});
