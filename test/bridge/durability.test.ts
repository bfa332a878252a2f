/** Tasks live in SQLite: a restarted gateway serves every task as it was and finishes the ones still running. */
import { afterEach, describe, expect, it } from 'vitest';
import { echoAgent } from '../../src/logos/agents/echo.ts';
import { eventually, rpc, startTestBed, type TestBed } from '../support/gateway.ts';
import { gatedAgent, type GatedAgent } from '../support/gated-agent.ts';

let bed: TestBed;
let gate: GatedAgent;
afterEach(() => bed.close());

async function start(config = {}) {
  bed = await startTestBed({
    config,
    agents: (network) => {
      gate = gatedAgent(network);
      return [echoAgent(network.node('agent:echo')), gate.agent];
    },
  });
}

const send = (url: string, text: string, extra: Record<string, unknown> = {}) =>
  rpc(url, 'SendMessage', {
    message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }], ...extra },
    configuration: { returnImmediately: true },
  });

async function stateOf(taskId: string, agent = 'gated') {
  const { body } = await rpc(`${bed.gateway.url}/agents/${agent}`, 'GetTask', { id: taskId });
  return body.result?.status?.state as string | undefined;
}

describe('durable state', () => {
  it('after a restart GetTask and ListTasks return every task as it was', async () => {
    await start();
    const done = [];
    for (const text of ['one', 'two', 'three']) {
      const { body } = await rpc(`${bed.gateway.url}/`, 'SendMessage', {
        message: { messageId: text, role: 'ROLE_USER', parts: [{ text }], contextId: 'ctx-durable' },
      });
      done.push(body.result.task);
    }
    const before = (await rpc(`${bed.gateway.url}/`, 'ListTasks', { contextId: 'ctx-durable', includeArtifacts: true }))
      .body.result;
    await bed.restartGateway();
    const after = (await rpc(`${bed.gateway.url}/`, 'ListTasks', { contextId: 'ctx-durable', includeArtifacts: true }))
      .body.result;
    expect(after).toEqual(before);
    for (const task of done)
      expect((await rpc(`${bed.gateway.url}/`, 'GetTask', { id: task.id })).body.result).toEqual(task);
  });

  it('a task working when the gateway stopped completes when the agent answers while it is down', async () => {
    await start();
    const { body } = await send(`${bed.gateway.url}/agents/gated`, 'survive');
    const taskId = body.result.task.id;
    await eventually(async () => ((await stateOf(taskId)) === 'TASK_STATE_WORKING' ? true : undefined));
    await bed.stopGateway();
    gate.open(); // the agent finishes while nobody listens: its replies are lost on the network
    await new Promise((resolve) => setTimeout(resolve, 50));
    await bed.restartGateway(); // the gateway asks for every reply after the last one it applied
    await eventually(async () => ((await stateOf(taskId)) === 'TASK_STATE_COMPLETED' ? true : undefined));
    const task = (await rpc(`${bed.gateway.url}/agents/gated`, 'GetTask', { id: taskId })).body.result;
    expect(task.artifacts.map((a: { artifactId: string }) => a.artifactId)).toEqual([
      'step-1',
      'step-2',
      'step-3',
      'result',
    ]);
  });

  it('a task working when the gateway stopped completes when the agent answers after the restart', async () => {
    await start();
    const { body } = await send(`${bed.gateway.url}/agents/gated`, 'later');
    const taskId = body.result.task.id;
    await eventually(async () => ((await stateOf(taskId)) === 'TASK_STATE_WORKING' ? true : undefined));
    await bed.restartGateway();
    expect(await stateOf(taskId)).toBe('TASK_STATE_WORKING');
    gate.open();
    await eventually(async () => ((await stateOf(taskId)) === 'TASK_STATE_COMPLETED' ? true : undefined));
  });

  it('an agent that never answers fails the task after the agent timeout, with a message saying so', async () => {
    await start({ agentTimeoutMs: 300 });
    // A card for an address nobody listens on: the request goes out and nothing comes back.
    bed.gateway.directory.register({
      ...gate.agent.card,
      id: 'ghost',
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: 'agent:nobody' }],
    });
    const { body } = await rpc(`${bed.gateway.url}/agents/ghost`, 'SendMessage', {
      message: { messageId: 'g', role: 'ROLE_USER', parts: [{ text: 'anyone?' }] },
    });
    const task = body.result.task;
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(task.status.message.parts[0].text).toMatch(/did not answer within 0\.3 s/);
  });
});
