/**
 * A restarted agent announces itself before its node has rejoined the network, so the gateway's first question
 * about a task it lost can be dropped on the way. The gateway asks again until the agent answers.
 */
import { afterEach, expect, it } from 'vitest';
import { eventually, rpc, startTestBed, type TestBed } from '../support/gateway.ts';
import { gatedAgent } from '../support/gated-agent.ts';

let bed: TestBed | undefined;
afterEach(() => bed?.close());

it('a question lost while the restarted agent was not yet reachable is asked again', async () => {
  let first!: ReturnType<typeof gatedAgent>;
  bed = await startTestBed({
    agents: (network) => {
      first = gatedAgent(network);
      return [first.agent];
    },
  });
  const url = `${bed.gateway.url}/agents/gated`;
  const sent = await rpc(url, 'SendMessage', {
    message: { messageId: 'restart-1', role: 'ROLE_USER', parts: [{ text: 'x' }] },
    configuration: { returnImmediately: true },
  });
  const taskId = sent.body.result.task.id as string;
  // The gateway has the agent's acknowledgement: asked again, it asks about the task rather than resending it.
  await eventually(async () =>
    (await rpc(url, 'GetTask', { id: taskId })).body.result.status.state === 'TASK_STATE_WORKING' ? true : undefined,
  );

  // The agent dies with the task; the gateway hears of a restart while nothing listens at the address yet.
  await first.agent.stop();
  bed.gateway.engine.agentRestarted('agent:gated');
  // The new process comes up a moment later, without any record of the task.
  const second = gatedAgent(bed.network);
  await second.agent.start();
  try {
    const failed = await eventually(async () => {
      const task = (await rpc(url, 'GetTask', { id: taskId })).body.result;
      return task.status.state === 'TASK_STATE_FAILED' ? task : undefined;
    });
    expect(failed.status.message.parts[0].text).toMatch(/no record of this task/);
  } finally {
    await second.agent.stop();
  }
});
