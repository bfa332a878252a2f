/**
 * A task_request lost on the way (on Waku: published while the agent's node was still joining the mesh) is sent
 * again while no reply has come, so the task completes instead of failing at the agent timeout (binding §5.5).
 */
import { afterEach, expect, it } from 'vitest';
import { echoAgent } from '../../src/logos/agents/echo.ts';
import { inProcess, rpc, startTestBed, type TestBed } from '../support/gateway.ts';

let bed: TestBed;
afterEach(() => bed?.close());

it('a lost task_request is sent again under a fresh id, and the task completes', async () => {
  const requests: { id: string }[] = [];
  bed = await startTestBed({
    agents: (testNetwork) => {
      const network = inProcess(testNetwork);
      const deliver = network.deliver.bind(network);
      network.deliver = (table, name, payload, sender, key) => {
        const envelope = JSON.parse(new TextDecoder().decode(payload)) as { type?: string; id: string };
        if (table === 'direct' && envelope.type === 'task_request') {
          requests.push(envelope);
          if (requests.length === 1) return; // the first never arrives
        }
        deliver(table, name, payload, sender, key);
      };
      return [echoAgent(network.node('agent:echo'))];
    },
  });
  const started = Date.now();
  const { body } = await rpc(`${bed.gateway.url}/agents/echo`, 'SendMessage', {
    message: { messageId: 'lost-1', role: 'ROLE_USER', parts: [{ text: 'second time lucky' }] },
  });
  expect(body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  expect(body.result.task.artifacts[0].parts[0].text).toBe('second time lucky');
  // Resent once, after about 2 s (not after the 60 s agent timeout), under a new envelope id.
  expect(requests).toHaveLength(2);
  expect(requests[1]!.id).not.toBe(requests[0]!.id);
  expect(Date.now() - started).toBeLessThan(10_000);
});

it('a lost task_request is not sent again once the caller has cancelled the task', async () => {
  const requests: unknown[] = [];
  bed = await startTestBed({
    config: { cancelTimeoutMs: 5_000 },
    agents: (testNetwork) => {
      const network = inProcess(testNetwork);
      const deliver = network.deliver.bind(network);
      network.deliver = (table, name, payload, sender, key) => {
        const envelope = JSON.parse(new TextDecoder().decode(payload)) as { type?: string };
        if (table === 'direct' && envelope.type === 'task_request') return void requests.push(envelope); // all lost
        // The agent's answer to the cancel (it never had the task) is slow to arrive: the cancel is still waiting
        // for it when the first resend would be due.
        if (table === 'topics') return void setTimeout(() => deliver(table, name, payload, sender, key), 3_000);
        deliver(table, name, payload, sender, key);
      };
      return [echoAgent(network.node('agent:echo'))];
    },
  });
  const url = `${bed.gateway.url}/agents/echo`;
  const { body } = await rpc(url, 'SendMessage', {
    message: { messageId: 'lost-2', role: 'ROLE_USER', parts: [{ text: 'never mind' }] },
    configuration: { returnImmediately: true },
  });
  await rpc(url, 'CancelTask', { id: body.result.task.id });
  // An agent that never had the request must not get it now, and run what the caller cancelled.
  expect(requests).toHaveLength(1);
});
