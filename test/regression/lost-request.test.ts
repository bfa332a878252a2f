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
