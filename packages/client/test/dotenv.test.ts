import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SettingsError, loadGatewaySettings, parseDotenv } from '../src/index.js';

describe('parseDotenv', () => {
  it('reads KEY=VALUE lines with comments, export prefixes, quotes and escapes', () => {
    const text = [
      '# a comment',
      '',
      'PLAIN=value  # trailing comment',
      'export EXPORTED = spaced value ',
      "SINGLE='literal \\n # not a comment'",
      'DOUBLE="line\\nnext \\"quoted\\" # kept"  # comment',
      'HASH_IN_URL=http://h/#frag',
      'EMPTY=',
      'COMMENT_ONLY=   # nothing here',
      'MULTI="first',
      'second"',
      'JSON={"a": 1}',
      'DUP=1',
      'DUP=2',
    ].join('\r\n');
    expect(parseDotenv(text)).toEqual({
      PLAIN: 'value',
      EXPORTED: 'spaced value',
      SINGLE: 'literal \\n # not a comment',
      DOUBLE: 'line\nnext "quoted" # kept',
      HASH_IN_URL: 'http://h/#frag',
      EMPTY: '',
      COMMENT_ONLY: '',
      MULTI: 'first\nsecond',
      JSON: '{"a": 1}',
      DUP: '2',
    });
  });

  it('a line it cannot read is an error naming the file and line', () => {
    const error = (() => {
      try {
        parseDotenv('OK=1\nthis is not an assignment\n', 'prod.env');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as SettingsError).key).toBe('prod.env:2');
  });

  it('an unterminated quote or text after a closing quote names the key', () => {
    expect(() => parseDotenv('A="open\nB=2')).toThrow(/^A: unterminated " quote/);
    expect(() => parseDotenv("A='x' y")).toThrow(/^A: unexpected text after the closing quote/);
  });
});

describe('env file precedence', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pgw-client-dotenv-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'test.env');
  writeFileSync(
    file,
    ['LLM__SOURCE__F__BASE_URL=http://from-file/v1', 'LLM__SOURCE__F__MODEL=file-model', 'LLM__MAX_ATTEMPTS=9', 'LLM__SELECTOR=ordered'].join('\n'),
  );

  it('the given env wins over the file; the file fills what env lacks', () => {
    const s = loadGatewaySettings('LLM', { envFile: file, env: { LLM__MAX_ATTEMPTS: '4', LLM__SOURCE__F__MODEL: 'env-model' } });
    expect(s.retry.maxAttempts).toBe(4);
    expect(s.selector).toBe('ordered');
    expect(s.sources[0]).toMatchObject({ baseUrl: 'http://from-file/v1', model: 'env-model' });
  });

  it('an empty value in env unsets the file value (the default applies)', () => {
    expect(loadGatewaySettings('LLM', { envFile: file, env: { LLM__SELECTOR: '' } }).selector).toBe('health_aware');
  });

  it('an explicitly named file that cannot be read is an error naming it', () => {
    expect(() => loadGatewaySettings('LLM', { envFile: join(dir, 'missing.env'), env: {} })).toThrow(/missing\.env \(ENOENT\)/);
  });
});
