// `pgw serve` in a child process for the plain scripts (serve-profile, compare-serve): started from
// a CLI entry with the given environment (PATH added) and node flags, resolved with its URL once it
// listens.
import { spawn } from 'node:child_process';

export async function startPgwServe(bin, env, nodeFlags = []) {
  const child = spawn(process.execPath, [...nodeFlags, bin, 'serve', '--port', '0'], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    // Read to the end: the access log goes there, and a full pipe would stall the server.
    child.stderr.on('data', (chunk) => {
      if (out.length > 4096) return;
      out += chunk;
      const match = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
      if (match) resolve(match[0]);
    });
    child.once('exit', (code) => reject(new Error(`pgw serve (${bin}) exited with ${code}: ${out}`)));
  });
  return { child, url };
}
