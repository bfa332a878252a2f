/** SSE done right: framing, headers, identical events to concurrent subscribers, heartbeats, disconnects. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoAgent } from '../../src/logos/agents/echo.ts';
import { eventually, rpc, startTestBed, type TestBed } from '../support/gateway.ts';
import { gatedAgent, type GatedAgent } from '../support/gated-agent.ts';
import { dataOf, openSse } from '../support/sse.ts';

let bed: TestBed;
let gate: GatedAgent;
beforeAll(async () => {
  bed = await startTestBed({
    config: { sseHeartbeatMs: 200 },
    agents: (network) => {
      gate = gatedAgent(network);
      return [echoAgent(network.node('agent:echo')), gate.agent];
    },
  });
});
afterAll(() => bed.close());

const jsonRpc = { 'Content-Type': 'application/json', 'A2A-Version': '1.0' };
const gatedUrl = () => `${bed.gateway.url}/agents/gated`;

async function startGatedTask(): Promise<string> {
  const waitingBefore = gate.waiting;
  const { body } = await rpc(gatedUrl(), 'SendMessage', {
    message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: 'go' }] },
    configuration: { returnImmediately: true },
  });
  const taskId = body.result.task.id as string;
  await eventually(() => (gate.waiting > waitingBefore ? true : undefined));
  // Wait for the agent's acknowledgement too, so that nothing but the gate is pending.
  await eventually(async () =>
    (await rpc(gatedUrl(), 'GetTask', { id: taskId })).body.result.status.state === 'TASK_STATE_WORKING'
      ? true
      : undefined,
  );
  return taskId;
}

const subscribe = (taskId: string) =>
  openSse(gatedUrl(), {
    method: 'POST',
    headers: jsonRpc,
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'SubscribeToTask', params: { id: taskId } }),
  });

describe('SSE', () => {
  it('frames are `data: <one JSON-RPC response>` with anti-buffering headers, closing at the terminal state', async () => {
    const stream = await openSse(`${bed.gateway.url}/`, {
      method: 'POST',
      headers: jsonRpc,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'abc',
        method: 'SendStreamingMessage',
        params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } },
      }),
    });
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.response.headers.get('cache-control')).toMatch(/no-cache/);
    expect(stream.response.headers.get('x-accel-buffering')).toBe('no');
    const events = (await stream.rest()) as { jsonrpc: string; id: string; result: Record<string, any> }[];
    expect(events.every((e) => e.jsonrpc === '2.0' && e.id === 'abc')).toBe(true);
    expect(Object.keys(events[0]!.result)).toEqual(['task']);
    expect(events.at(-1)!.result.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('two concurrent subscribers receive identical events in identical order', async () => {
    const taskId = await startGatedTask();
    const [a, b] = await Promise.all([subscribe(taskId), subscribe(taskId)]);
    expect(dataOf(await a.nextFrame()).result.task.id).toBe(taskId);
    expect(dataOf(await b.nextFrame()).result.task.id).toBe(taskId);
    gate.open();
    const [restA, restB] = await Promise.all([a.rest(), b.rest()]);
    expect(restA.length).toBeGreaterThanOrEqual(4); // three artifacts and the completion
    expect(restB).toEqual(restA);
    expect((restA.at(-1) as any).result.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('an idle stream gets comment heartbeats', async () => {
    const taskId = await startGatedTask();
    const stream = await subscribe(taskId);
    await stream.nextFrame(); // the task
    expect(await stream.nextFrame()).toBe(': keep-alive');
    stream.abort();
    gate.open();
  });

  it('a client that disconnects never changes the task', async () => {
    const taskId = await startGatedTask();
    const stream = await subscribe(taskId);
    await stream.nextFrame();
    stream.abort();
    await new Promise((resolve) => setTimeout(resolve, 50));
    gate.open();
    const task = await eventually(async () => {
      const { body } = await rpc(gatedUrl(), 'GetTask', { id: taskId });
      return body.result.status.state === 'TASK_STATE_COMPLETED' ? body.result : undefined;
    });
    expect(task.artifacts).toHaveLength(4);
  });

  it('REST streams carry bare StreamResponse objects', async () => {
    const stream = await openSse(`${bed.gateway.url}/message:stream`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ message: { messageId: 'r1', role: 'ROLE_USER', parts: [{ text: 'x' }] } }),
    });
    const events = (await stream.rest()) as Record<string, any>[];
    expect(Object.keys(events[0]!)).toEqual(['task']);
    expect(events.at(-1)!.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('subscribing to an unknown task is a plain JSON error, not a stream', async () => {
    // No stream is opened, so no socket is needed: the app in-process.
    const response = await bed.gateway.app.request('/', {
      method: 'POST',
      headers: jsonRpc,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: 'missing' } }),
    });
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect((await response.json()).error.code).toBe(-32001);
  });
});
