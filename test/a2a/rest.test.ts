/** The HTTP+JSON binding's media types and statuses, as HTTP+JSON clients and the conformance suite read them. */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBed, type TestBed } from '../support/gateway.ts';

let bed: TestBed;
beforeAll(async () => (bed = await startTestBed({ config: { maxBodyBytes: 4096 } })));
afterAll(() => bed.close());

const json = { 'Content-Type': 'application/json' };
const send = (messageId: string) =>
  JSON.stringify({ message: { messageId, role: 'ROLE_USER', parts: [{ text: 'hi' }] } });
/** The app in-process; only the test of the connection after a 413 needs a socket. */
const rest = (path: string, init: RequestInit = {}) => bed.gateway.app.request(path, init);

describe('HTTP+JSON binding', () => {
  it('answers results and errors as application/json, and takes application/a2a+json requests too', async () => {
    const sent = await rest('/message:send', {
      method: 'POST',
      headers: { 'Content-Type': 'application/a2a+json' },
      body: send('rest-media-1'),
    });
    expect(sent.status).toBe(200);
    expect(sent.headers.get('content-type')).toMatch(/^application\/json/);
    const missing = await rest('/tasks/nope');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('a body that is not JSON by its Content-Type is 415 with an AIP-193 error body', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
      const response = await rest('/message:send', {
        method: 'POST',
        headers: { 'Content-Type': contentType },
        body: 'hi',
      });
      expect(response.status).toBe(415);
      const body = await response.json();
      expect(body.error).toMatchObject({ code: 415, status: 'INVALID_ARGUMENT' });
      expect(body.error.message).toMatch(/Content-Type must be application\/json/);
    }
  });

  it('cancelling a task that cannot be cancelled is 409 TASK_NOT_CANCELABLE', async () => {
    const task = (
      await (await rest('/message:send', { method: 'POST', headers: json, body: send('rest-cancel-1') })).json()
    ).task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const response = await rest(`/tasks/${task.id}:cancel`, { method: 'POST', headers: json, body: '{}' });
    expect(response.status).toBe(409);
    const body = await response.json();
    expect(body.error.status).toBe('FAILED_PRECONDITION');
    expect(body.error.details[0].reason).toBe('TASK_NOT_CANCELABLE');
  });

  it('a chunked body over the limit is 413 with Connection: close, and the next connection is served', async () => {
    const { status, connection } = await new Promise<{ status: number; connection: string | undefined }>(
      (resolve, reject) => {
        const url = new URL('/message:send', bed.gateway.url);
        const req = request(
          {
            host: '127.0.0.1',
            port: url.port,
            path: url.pathname,
            method: 'POST',
            headers: { ...json, 'Transfer-Encoding': 'chunked' },
          },
          (res) => {
            res.resume();
            resolve({ status: res.statusCode!, connection: res.headers.connection });
          },
        );
        req.on('error', reject);
        req.write('{"message":{"messageId":"big","role":"ROLE_USER","parts":[{"text":"');
        req.write('x'.repeat(8192));
        req.end('"}]}}');
      },
    );
    expect(status).toBe(413);
    expect(connection).toBe('close');
    const next = await fetch(`${bed.gateway.url}/message:send`, {
      method: 'POST',
      headers: json,
      body: send('rest-after-413'),
    });
    expect(next.status).toBe(200);
  });

  it('JSON nested 1,500 levels deep is a 400 on both REST bindings, not a crash', async () => {
    const deep = '['.repeat(1_500) + ']'.repeat(1_500); // within this bed's 4 KiB body limit
    for (const path of ['/message:send', '/v1/message:send']) {
      const response = await rest(path, { method: 'POST', headers: json, body: `{"message":${deep}}` });
      expect(response.status).toBe(400);
      expect(JSON.stringify(await response.json())).toMatch(/levels deep/);
    }
  });

  it('the v0.3 binding holds a send to the same limits as the others: a long contextId is a 400, not a lost task', async () => {
    const body = JSON.stringify({
      message: {
        messageId: 'v03-long-context',
        contextId: 'c'.repeat(300),
        role: 'ROLE_USER',
        content: [{ text: 'hi' }],
      },
    });
    const response = await rest('/v1/message:send', { method: 'POST', headers: json, body });
    expect(response.status).toBe(400);
    expect((await response.json()).message).toMatch(/contextId: at most 256 characters/);
  });
});

describe('ids in REST paths', () => {
  it('with a NUL character are a 400 on every route of both versions, never a store error', async () => {
    const sent = await rest('/message:send', { method: 'POST', headers: json, body: send('rest-nul-1') });
    const { task } = await sent.json();
    const v03 = { 'A2A-Version': '0.3' };
    const routes: [string, string, Record<string, string>?][] = [
      ['POST', '/tasks/a%00:cancel'],
      ['POST', '/tasks/a%00:subscribe'],
      ['GET', '/tasks/a%00:subscribe'],
      ['GET', '/tasks/a%00'],
      ['GET', '/tasks/a%00/pushNotificationConfigs'],
      ['GET', `/tasks/${task.id}/pushNotificationConfigs/a%00`],
      ['DELETE', `/tasks/${task.id}/pushNotificationConfigs/a%00`],
      ['GET', '/v1/tasks/a%00', v03],
      ['POST', '/v1/tasks/a%00:cancel', v03],
      ['GET', '/v1/tasks/a%00:subscribe', v03],
      ['POST', '/v1/tasks/a%00:subscribe', v03],
      ['GET', '/v1/tasks/a%00/pushNotificationConfigs', v03],
      ['POST', '/v1/tasks/a%00/pushNotificationConfigs', v03],
      ['GET', `/v1/tasks/${task.id}/pushNotificationConfigs/a%00`, v03],
      ['DELETE', `/v1/tasks/${task.id}/pushNotificationConfigs/a%00`, v03],
    ];
    for (const [method, path, headers] of routes) {
      const body = method === 'POST' ? '{}' : undefined;
      const response = await rest(path, { method, headers: { ...json, ...headers }, ...(body ? { body } : {}) });
      expect(response.status, `${method} ${path}`).toBe(400);
      expect(JSON.stringify(await response.json()), `${method} ${path}`).toMatch(/NUL character/);
    }
  });

  it('a v0.3 push config posted with a NUL or an overlong id is a 400', async () => {
    const sent = await rest('/message:send', { method: 'POST', headers: json, body: send('rest-nul-2') });
    const { task } = await sent.json();
    for (const id of ['b\u0000zzz', 'i'.repeat(257)]) {
      const response = await rest(`/v1/tasks/${task.id}/pushNotificationConfigs`, {
        method: 'POST',
        headers: { ...json, 'A2A-Version': '0.3' },
        body: JSON.stringify({ pushNotificationConfig: { id, url: 'https://hooks.example/a' } }),
      });
      expect(response.status).toBe(400);
      expect(JSON.stringify(await response.json())).toMatch(/pushNotificationConfig\.id/);
    }
  });
});
