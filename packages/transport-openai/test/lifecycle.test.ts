import { createAgent } from '@pgw/http';
import { probeHandles, startMockUpstream } from '@pgw/mock-upstream';
import { describe, expect, it } from 'vitest';
import { openaiCompatible } from '../src/index.js';
import { attemptContext } from './helpers.js';

const messages = [{ role: 'user' as const, content: 'hi' }];

// Alone in its file: another Agent's keep-alive sockets would keep undici's shared timer alive.
describe('the dispatcher a model uses', () => {
  it('creates its own Agent lazily and closes it; never closes an injected dispatcher', async () => {
    const probe = probeHandles();
    const ownMock = await startMockUpstream({ script: { sources: { own: {} } } });
    const own = openaiCompatible({ baseUrl: ownMock.baseUrl('own'), model: 'm' });
    await own.generate({ messages, sampling: {} }, { ...attemptContext(), sourceName: 'own' });
    await own.close();
    await ownMock.close();
    expect(await probe.leftovers()).toEqual([]);

    const agent = createAgent();
    const injected = openaiCompatible({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', dispatcher: agent });
    await injected.close();
    expect(agent.closed).toBe(false);
    await agent.close();
  });

});
