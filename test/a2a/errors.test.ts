/** Bad input gets the right JSON-RPC / HTTP error with a message a person can act on, and nothing is lost. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBed, type TestBed } from '../support/gateway.ts';

let bed: TestBed;
beforeAll(async () => (bed = await startTestBed({ config: { maxBodyBytes: 4096 } })));
afterAll(() => bed.close());

const send = (params: Record<string, unknown> = {}) => ({
  message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: 'hi' }] },
  ...params,
});

// Nothing here needs a socket: the app is called in-process.
const request = (path: string, init?: RequestInit) => bed.gateway.app.request(path, init);

async function post(path: string, body: string, headers: Record<string, string>) {
  const response = await request(path, { method: 'POST', headers, body });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined, headers: response.headers };
}

async function rpc(
  path: string,
  method: string,
  params: unknown,
  headers: Record<string, string> = { 'A2A-Version': '1.0' },
) {
  const { status, json } = await post(path, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), {
    'Content-Type': 'application/json',
    ...headers,
  });
  return { status, body: json as { result?: any; error?: { code: number; message: string; data?: unknown } } };
}

describe('JSON-RPC guards and errors', () => {
  it('a non-JSON Content-Type gets -32005 before the body is parsed', async () => {
    const { status, json } = await post('/', 'not json at all', { 'Content-Type': 'text/plain', 'A2A-Version': '1.0' });
    expect(status).toBe(200);
    expect(json.error.code).toBe(-32005);
    expect(json.error.message).toMatch(/application\/json/);
  });

  it('a body over the limit gets 413 and a message naming the limit', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: send({ pad: 'x'.repeat(10_000) }),
    });
    const { status, json } = await post('/', big, { 'Content-Type': 'application/json', 'A2A-Version': '1.0' });
    expect(status).toBe(413);
    expect(json.error.code).toBe(-32600);
    expect(json.error.message).toMatch(/4096 bytes/);
  });

  it('an unsupported A2A-Version gets -32009', async () => {
    const { body } = await rpc('/', 'SendMessage', send(), { 'A2A-Version': '99.0' });
    expect(body.error?.code).toBe(-32009);
    expect(body.error?.message).toMatch(/99\.0/);
  });

  it('invalid JSON gets -32700', async () => {
    const { json } = await post('/', '{"jsonrpc": "2.0", "id": 1,', {
      'Content-Type': 'application/json',
      'A2A-Version': '1.0',
    });
    expect(json.error.code).toBe(-32700);
    expect(json.id).toBeNull();
  });

  it.each([
    ['not an object', '[1,2]'],
    ['wrong jsonrpc', '{"jsonrpc":"1.0","id":1,"method":"GetTask","params":{}}'],
    ['no method', '{"jsonrpc":"2.0","id":1,"params":{}}'],
    ['fractional id', '{"jsonrpc":"2.0","id":1.5,"method":"GetTask","params":{}}'],
    ['string params', '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":"x"}'],
  ])('a bad envelope (%s) gets -32600', async (_name, body) => {
    const { json } = await post('/', body, { 'Content-Type': 'application/json', 'A2A-Version': '1.0' });
    expect(json.error.code).toBe(-32600);
  });

  it('params as an array is a well-formed request with params A2A cannot take: -32602', async () => {
    const { json } = await post('/', '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":[]}', {
      'Content-Type': 'application/json',
      'A2A-Version': '1.0',
    });
    expect(json.error.code).toBe(-32602);
    expect(json.id).toBe(1);
  });

  it('bad params get -32602 with a message', async () => {
    const noParts = await rpc('/', 'SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [] } });
    expect(noParts.body.error?.code).toBe(-32602);
    expect(noParts.body.error?.message).toMatch(/parts/);
    const badSkill = await rpc(
      '/',
      'SendMessage',
      send({
        metadata: {},
        message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ text: 'x' }], metadata: { skill: 'nope' } },
      }),
    );
    expect(badSkill.body.error?.code).toBe(-32602);
    expect(badSkill.body.error?.message).toMatch(/no skill "nope".*echo/);
    const badPage = await rpc('/', 'ListTasks', { pageSize: 1000 });
    expect(badPage.body.error?.code).toBe(-32602);
    const badToken = await rpc('/', 'ListTasks', { pageToken: 'garbage' });
    expect(badToken.body.error?.code).toBe(-32602);
  });

  it('an unknown method gets -32601; a method of the other version says which header to send', async () => {
    const unknown = await rpc('/', 'DoMagic', {});
    expect(unknown.body.error?.code).toBe(-32601);
    const v1WithoutHeader = await rpc('/', 'SendMessage', send(), {});
    expect(v1WithoutHeader.body.error?.code).toBe(-32601);
    expect(v1WithoutHeader.body.error?.message).toMatch(/A2A-Version: 1\.0/);
    const v03WithHeader = await rpc('/', 'message/send', {}, { 'A2A-Version': '1.0' });
    expect(v03WithHeader.body.error?.code).toBe(-32601);
    // The SDK's method tables answer `in`, so Object.prototype's names must not pass for methods.
    for (const [method, headers] of [
      ['toString', { 'A2A-Version': '1.0' }],
      ['constructor', {}],
    ] as const) {
      const inherited = await rpc('/', method, {}, headers);
      expect(inherited.body.error?.code).toBe(-32601);
      expect(inherited.body.error?.message).toMatch(
        /does not exist\. A2A v1\.0 methods: SendMessage, SendStreamingMessage, GetTask, ListTasks, CancelTask,/,
      );
    }
  });

  it('task errors: -32001 unknown, -32002 not cancelable, -32004 message to a terminal task', async () => {
    // Push notification configs are covered with their implementation (test/push/push-service.test.ts and test/a2a/push.test.ts).
    const url = '/';
    expect((await rpc(url, 'GetTask', { id: 'missing' })).body.error?.code).toBe(-32001);
    const done = (await rpc(url, 'SendMessage', send())).body.result.task;
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await rpc(url, 'CancelTask', { id: done.id })).body.error?.code).toBe(-32002);
    const again = await rpc(url, 'SendMessage', {
      message: { messageId: 'again', role: 'ROLE_USER', taskId: done.id, parts: [{ text: 'x' }] },
    });
    expect(again.body.error?.code).toBe(-32004);
    expect((await rpc(url, 'SubscribeToTask', { id: done.id })).body.error?.code).toBe(-32004);
    expect((await rpc(url, 'GetExtendedAgentCard', {})).body.error?.code).toBe(-32004);
    // Errors carry google.rpc.ErrorInfo details.
    const notFound = (await rpc(url, 'GetTask', { id: 'missing' })).body.error as { data?: { reason?: string }[] };
    expect(notFound.data?.[0]?.reason).toBe('TASK_NOT_FOUND');
  });

  it('trailing slashes route the same', async () => {
    const withSlash = await rpc('/agents/echo/', 'SendMessage', send());
    expect(withSlash.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const card = await request('/agents/echo/.well-known/agent-card.json/');
    expect(card.status).toBe(200);
  });

  it('an unknown agent is a 404 that lists the agents', async () => {
    const response = await request('/agents/nobody/.well-known/agent-card.json');
    expect(response.status).toBe(404);
    expect((await response.json()).error.message).toMatch(/nobody.*echo/);
  });
});

describe('HTTP+JSON errors', () => {
  const rest = request;

  it('maps A2A errors to HTTP statuses with a REST error body', async () => {
    const missing = await rest('/tasks/missing');
    expect(missing.status).toBe(404);
    const body = await missing.json();
    expect(body.error.status).toBe('NOT_FOUND');
    expect(body.error.details[0].reason).toBe('TASK_NOT_FOUND');

    const wrongType = await rest('/message:send', {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: 'hi',
    });
    expect(wrongType.status).toBe(415);
    expect((await wrongType.json()).error.message).toMatch(/Content-Type/);

    const badJson = await rest('/message:send', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{',
    });
    expect(badJson.status).toBe(400);

    const tooBig = await rest('/message:send', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(send({ pad: 'x'.repeat(10_000) })),
    });
    expect(tooBig.status).toBe(413);

    const badVersion = await rest('/tasks', { headers: { 'A2A-Version': '99.0' } });
    expect(badVersion.status).toBe(400);

    const wrongMethod = await rest('/message:send');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');

    const badHistory = await rest('/tasks/x?historyLength=abc');
    expect(badHistory.status).toBe(400);
  });

  it('nothing is lost: the gateway keeps serving after every bad request', async () => {
    const ok = await rest('/message:send', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(send()),
    });
    expect(ok.status).toBe(200);
    expect((await ok.json()).task.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('HTTP+JSON ListTasks', () => {
  it('always carries every field, with nextPageToken "" on the last page', async () => {
    const response = await request('/tasks?contextId=nothing-here');
    expect(await response.json()).toEqual({ tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
  });
});

describe('ListTasks filters', () => {
  it('an unknown status is a client error on both bindings, not an empty list', async () => {
    expect((await rpc('/', 'ListTasks', { status: 'TASK_STATE_BOGUS' })).body.error?.code).toBe(-32602);
    expect((await request('/tasks?status=TASK_STATE_BOGUS')).status).toBe(400);
  });
});

describe('one edge check for both bindings', () => {
  it('HTTP+JSON path, query and body go through the same params schema as JSON-RPC', async () => {
    const url = '/';
    const cases: [string, Record<string, unknown>, string, RegExp][] = [
      ['GetTask', { id: 'x', historyLength: -1 }, '/tasks/x?historyLength=-1', /historyLength: must be 0 or more/],
      ['ListTasks', { pageSize: 1000 }, '/tasks?pageSize=1000', /pageSize: at most 100/],
      [
        'ListTasks',
        { includeArtifacts: 'yes' },
        '/tasks?includeArtifacts=yes',
        /includeArtifacts: must be true or false/,
      ],
      ['ListTasks', { statusTimestampAfter: 'yesterday' }, '/tasks?statusTimestampAfter=yesterday', /ISO 8601/],
    ];
    for (const [method, params, path, message] of cases) {
      const jsonRpc = await rpc(url, method, params);
      expect(jsonRpc.body.error?.code, method).toBe(-32602);
      expect(jsonRpc.body.error?.message).toMatch(message);
      const rest = await request(path);
      expect(rest.status, path).toBe(400);
      expect((await rest.json()).error.message).toMatch(message);
    }
    const noUrl = await request('/tasks/x/pushNotificationConfigs', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"token":"t"}',
    });
    expect(noUrl.status).toBe(400);
    expect((await noUrl.json()).error.message).toBe('Invalid push notification config: url: is required.');
    expect((await rpc(url, 'CreateTaskPushNotificationConfig', { taskId: 'x', token: 't' })).body.error?.message).toBe(
      'Invalid params: url: is required.',
    );
  });
});

describe('one error model, one body per binding', () => {
  let keyed: TestBed;
  beforeAll(
    async () => (keyed = await startTestBed({ config: { apiKeys: [{ name: 'alice', key: 'alice-key-0123456789' }] } })),
  );
  afterAll(() => keyed.close());

  it('without a valid API key every binding answers 401 with WWW-Authenticate, in its own error shape', async () => {
    const json = { 'Content-Type': 'application/json' };
    const jsonRpc = await keyed.gateway.app.request('/', {
      method: 'POST',
      headers: { ...json, 'A2A-Version': '1.0' },
      body: '{}',
    });
    const rest = await keyed.gateway.app.request('/tasks/x');
    const legacyRest = await keyed.gateway.app.request('/v1/tasks/x');
    for (const response of [jsonRpc, rest, legacyRest]) {
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
    }
    expect(await jsonRpc.json()).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringMatching(/API key/) },
    });
    expect(await rest.json()).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED', details: [] } });
    expect(await legacyRest.json()).toMatchObject({ code: -32600, message: expect.stringMatching(/API key/) });
  });

  it("a JSON-RPC error takes the shape of the request's version: v1.0 with ErrorInfo, v0.3 without", async () => {
    const url = '/';
    const v1 = await rpc(url, 'GetTask', { id: 5 });
    expect(v1.body.error).toMatchObject({ code: -32602, data: [{ reason: 'INVALID_PARAMS' }] });
    const v03 = await rpc(url, 'tasks/get', { id: 5 }, {});
    expect(v03.body.error?.code).toBe(-32602);
    expect(v03.body.error).not.toHaveProperty('data');
    // Codes JSON-RPC has and A2A does not carry no ErrorInfo.
    expect(
      (await post('/', '{', { 'Content-Type': 'application/json', 'A2A-Version': '1.0' })).json.error,
    ).not.toHaveProperty('data');
  });
});
