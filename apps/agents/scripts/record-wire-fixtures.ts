/**
 * Records the request bodies real clients send, for @pgw/wire's table-driven tests
 * (packages/wire/test/fixtures/<client>.json): a loopback capture server answers each protocol
 * minimally (scripts/wire/capture.ts), each client runs its scenarios against it
 * (scripts/wire/*-clients.ts), and the bodies, scrubbed of what differs per run or machine
 * (scripts/wire/scrub.ts), are written one file per client. Run by hand, never in CI:
 *
 *   pnpm --filter @pgw/agents record:wire [<client> ...]
 *
 * With client names, only those files are rewritten. A client that fails leaves its file as it was
 * and makes the exit code 1.
 */
import { writeFile } from 'node:fs/promises';
import type { Protocol } from './wire/answers.js';
import { startCapture, type Capture } from './wire/capture.js';
import { agentsSdk, claudeCode, codexCli, langchain } from './wire/fetched-clients.js';
import type { ClientRecording } from './wire/recording.js';
import { scrubber } from './wire/scrub.js';
import { aiSdk, anthropicSdk, openaiSdk } from './wire/sdk-clients.js';

const FIXTURES = new URL('../../../packages/wire/test/fixtures/', import.meta.url);
const RECORDED_WITH = 'apps/agents/scripts/record-wire-fixtures.ts';
const CLIENTS = [openaiSdk, aiSdk, agentsSdk, langchain, codexCli, claudeCode, anthropicSdk];

interface FixtureRequest {
  name: string;
  protocol: Protocol;
  path: string;
  body: Record<string, unknown>;
}

/** The client's scenarios, run one after another; the requests each made, named as its scenario says. */
async function record(capture: Capture, recording: ClientRecording): Promise<FixtureRequest[]> {
  const named: FixtureRequest[] = [];
  const paths: string[] = [];
  for (const scenario of recording.scenarios) {
    capture.script(scenario.answers ?? [], scenario.fallback);
    capture.take();
    const folders = await scenario.run(capture.url, (answers) => capture.script(answers, scenario.fallback));
    paths.push(...(folders ?? []));
    const { requests, unknown } = capture.take();
    if (unknown.length > 0) console.warn(`${recording.client}: answered 404 or failed: ${unknown.join('; ')}`);
    if (requests.length !== scenario.requests.length) {
      throw new Error(`${recording.client}: '${scenario.requests.join("', '")}' made ${requests.length} requests (${requests.map((request) => request.path).join(', ')}), not ${scenario.requests.length}`);
    }
    requests.forEach((request, index) => {
      const name = scenario.requests[index];
      if (name !== null && name !== undefined) named.push({ name, ...request });
    });
  }
  const scrub = scrubber(paths, recording.maps);
  return named.map(({ name, protocol, path, body }) => ({ name, protocol, path, body: scrub.body(body) }));
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2).filter((arg) => arg !== '--');
  const unknownNames = wanted.filter((name) => !CLIENTS.some((client) => client.client === name));
  if (unknownNames.length > 0) throw new Error(`no client ${unknownNames.join(', ')}; the clients: ${CLIENTS.map((client) => client.client).join(', ')}`);
  const capture = await startCapture();
  let failed = false;
  try {
    for (const recording of CLIENTS.filter((client) => wanted.length === 0 || wanted.includes(client.client))) {
      try {
        const requests = await record(capture, recording);
        const fixture = { client: recording.client, version: await recording.version(), recordedWith: RECORDED_WITH, requests };
        await writeFile(new URL(`${recording.client}.json`, FIXTURES), `${JSON.stringify(fixture, null, 2)}\n`);
        console.log(`${recording.client} ${fixture.version}: ${requests.length} requests`);
      } catch (error) {
        failed = true;
        console.error(`${recording.client}: not recorded:`, error);
      }
    }
  } finally {
    await capture.close();
  }
  process.exitCode = failed ? 1 : 0;
}

await main();
