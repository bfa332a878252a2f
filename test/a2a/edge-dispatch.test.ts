/**
 * The HTTP face's entry in front of the routing (observe.ts, app.ts): while the gateway drains, the probes (GET or
 * HEAD, with or without a trailing slash) still answer and everything else gets 503; a v1.0 SendMessage is answered
 * without the SDK's transport handler, in the body that handler would write, and every other call still goes through it.
 */
import { JsonRpcTransportHandler } from '@a2a-js/sdk/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rpc, startTestBed, type TestBed } from '../support/gateway.ts';

let bed: TestBed;
beforeAll(async () => {
  bed = await startTestBed();
});
afterAll(() => bed.close());

const message = (messageId: string, extra: Record<string, unknown> = {}) => ({
  message: { messageId, role: 'ROLE_USER', parts: [{ text: 'hello' }], ...extra },
});

describe('a v1.0 SendMessage', () => {
  it('is answered without the SDK transport handler, as that handler answers it', async () => {
    const handle = vi.spyOn(JsonRpcTransportHandler.prototype, 'handle');
    try {
      const sent = await rpc(`${bed.gateway.url}/agents/echo/`, 'SendMessage', message('edge-1'));
      expect(handle).not.toHaveBeenCalled();
      expect(sent.status).toBe(200);
      expect(sent.headers.get('a2a-version')).toBe('1.0');
      const task = sent.body.result.task;
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');

      // The same task read through the SDK's handler: the codec is the same, so is the JSON.
      const read = await rpc(`${bed.gateway.url}/agents/echo/`, 'GetTask', { id: task.id });
      expect(handle).toHaveBeenCalledTimes(1);
      expect(read.body.result).toEqual(task);
    } finally {
      handle.mockRestore();
    }
  });

  it('maps what the request handler throws as the SDK does: an unknown task is TaskNotFound with its ErrorInfo', async () => {
    const sent = await rpc(`${bed.gateway.url}/agents/echo/`, 'SendMessage', message('edge-2', { taskId: 'no-such' }));
    expect(sent.status).toBe(200);
    expect(sent.body.error).toMatchObject({
      code: -32001,
      data: [expect.objectContaining({ reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' })],
    });
  });
});

describe('while the gateway drains', () => {
  beforeAll(() => bed.stopGateway());

  it('answers the probes, by GET or HEAD, with or without a trailing slash', async () => {
    const { app } = bed.gateway;
    expect((await app.request('/livez')).status).toBe(200);
    expect((await app.request('/livez/')).status).toBe(200);
    expect((await app.request('/livez', { method: 'HEAD' })).status).toBe(200);
    expect((await app.request('/metrics')).status).toBe(200);
    expect((await app.request('/readyz')).status).toBe(503);
    expect(((await (await app.request('/health')).json()) as { status: string }).status).toBe('draining');
  });

  it('refuses everything else with 503, Retry-After and Connection: close, a probe path by another method too', async () => {
    const { app } = bed.gateway;
    for (const refused of [
      await app.request('/livez', { method: 'POST' }),
      await app.request('/livez', { method: 'OPTIONS' }),
      await app.request('/agents'),
      await app.request('/', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' }),
    ]) {
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(refused.headers.get('connection')).toBe('close');
    }
  });
});
