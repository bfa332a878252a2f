/** Regressions found by an independent review; each test failed before its fix. */
/** SSE streams whose client went away must stop listening to the task. */
import { afterEach, expect, it } from 'vitest';
import { rpc, startTestBed, type TestBed } from '../support/gateway.ts';
import { gatedAgent, type GatedAgent } from '../support/gated-agent.ts';
import { openSse } from '../support/sse.ts';

let bed: TestBed;
let gated: GatedAgent;
afterEach(async () => {
  gated?.open();
  await bed?.close();
});

const listenersOf = (taskId: string): number =>
  (bed.gateway.engine as unknown as { live: Map<string, { listeners: Set<unknown> }> }).live.get(taskId)?.listeners
    .size ?? -1;

/** A task the gated agent keeps working, and its JSON-RPC endpoint. */
async function workingTask(): Promise<{ url: string; taskId: string }> {
  bed = await startTestBed({ agents: (network) => [(gated = gatedAgent(network)).agent] });
  const url = `${bed.gateway.url}/agents/gated`;
  const { body } = await rpc(url, 'SendMessage', {
    message: { messageId: 'g1', role: 'ROLE_USER', parts: [{ text: 'x' }] },
    configuration: { returnImmediately: true },
  });
  return { url, taskId: body.result.task.id as string };
}

it('a SubscribeToTask stream the client aborts lets go of the task at once', async () => {
  const { url, taskId } = await workingTask();
  for (let i = 0; i < 5; i++) {
    const stream = await openSse(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'SubscribeToTask', params: { id: taskId } }),
    });
    expect(await stream.nextFrame()).toMatch(/^data: /);
    stream.abort();
  }
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  // Five clients came and went; none listens any more, though the task has not changed since.
  expect(listenersOf(taskId)).toBe(0);
});

it('a v0.3 tasks/resubscribe stream the client aborts lets go of the task at once', async () => {
  // v0.3 goes through the SDK's transport handler: its generator waits on the task, so the abort must reach it.
  const { url, taskId } = await workingTask();
  for (let i = 0; i < 5; i++) {
    const stream = await openSse(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tasks/resubscribe', params: { id: taskId } }),
    });
    expect(await stream.nextFrame()).toMatch(/^data: /);
    stream.abort();
  }
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(listenersOf(taskId)).toBe(0);
});
