import { GatewayClient } from '@pgw/client';
import { MODEL_SPECIFICATION_VERSION } from '@pgw/core';
const result = { content: 'hi', model: 'm', usage: { promptTokens: 5, completionTokens: 2, usageSource: 'measured' }, thinkingObservation: { observed: false } };
const model = { specificationVersion: MODEL_SPECIFICATION_VERSION, provider: 'fake', modelId: 'm', capabilities: { jsonSchema: true, streaming: false }, managedKeys: [],
  generate: () => new Promise((r) => setImmediate(r, result)) };
const c = Number(process.env.C ?? 64), calls = Number(process.env.CALLS ?? 100000);
const client = await GatewayClient.fromSettings({ scope: 'GOV', sources: [{ name: 's0', model }], backends: { limiter: 'memory', breaker: 'memory', cache: 'none', telemetry: 'none' } });
const messages = [{ role: 'user', content: 'Reply with a short greeting.' }];
for (let round = 0; round < Number(process.env.ROUNDS ?? 3); round++) {
  let next = 0;
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: c }, async () => { while (next++ < calls) await client.chat(messages); }));
  const u = process.cpuUsage(cpu);
  console.log(`governance only c=${c}: ${((u.user + u.system) / calls).toFixed(2)} µs/call`);
}
await client.close();
