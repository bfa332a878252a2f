/**
 * A blocking send waits on the gateway's shutdown only while its answer has not come: an agent that answers before
 * the task is recorded (the in-process echo does) costs no listener on the shutdown signal.
 */
import { SendMessageRequest, TaskState, type Task } from '@a2a-js/sdk';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { projectCard } from '../../src/a2a/card-projection.ts';
import { agentRequestHandler } from '../../src/bridge/request-handler.ts';
import { startTestBed, TEST_WIRE, type TestBed } from '../support/gateway.ts';

let bed: TestBed;
beforeAll(async () => {
  bed = await startTestBed();
});
afterAll(() => bed.close());

it.skipIf(TEST_WIRE === 'waku')(
  'answered before its task is recorded, adds no listener to the shutdown signal',
  async () => {
    const shutdown = new AbortController();
    const listens = vi.spyOn(shutdown.signal, 'addEventListener');
    const entry = bed.gateway.directory.get('echo')!;
    const handler = agentRequestHandler(entry, projectCard(entry.card, `${bed.gateway.url}/agents/echo`), {
      engine: bed.gateway.engine,
      store: bed.gateway.store,
      shutdown: shutdown.signal,
    });
    const answer = (await handler.sendMessage(
      SendMessageRequest.fromJSON({ message: { messageId: 'quick', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }),
      new ServerCallContext({ requestedVersion: '1.0' }),
    )) as Task;
    expect(answer.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(listens).not.toHaveBeenCalled();
  },
);
