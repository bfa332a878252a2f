/**
 * Hostile and malformed input, measured against a running gateway. The rule: whatever passes the edge is answered;
 * what the binding could not carry, what the SDK's codecs would coerce or choke on, is refused at the edge with a
 * client error that names the field and the limit.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_CONTEXT_ID_CHARS, MAX_ID_CHARS, MAX_SKILL_CHARS } from '../../src/logos/envelope.ts';
import { MAX_JSON_DEPTH } from '../../src/a2a/request-body.ts';
import { rpc, startTestBed, type TestBed } from '../support/gateway.ts';

let bed: TestBed;
beforeAll(async () => (bed = await startTestBed()));
afterAll(() => bed?.close());

const echo = () => `${bed.gateway.url}/agents/echo`;
const V03 = {}; // no A2A-Version header: v0.3

/** A v1.0 SendMessage message with the given changes. */
const v1 = (message: Record<string, unknown> = {}) => ({
  message: { messageId: `h-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: 'hi' }], ...message },
});
/** A v0.3 message/send message with the given changes. */
const v03 = (message: Record<string, unknown> = {}) => ({
  message: {
    kind: 'message',
    messageId: `h-${Math.random()}`,
    role: 'user',
    parts: [{ kind: 'text', text: 'hi' }],
    ...message,
  },
});

/** Answered at once with -32602 whose message names the field, with HTTP 200 (a client error, not a crash). */
async function expectInvalidParams(
  method: string,
  params: unknown,
  field: RegExp,
  headers: Record<string, string> = { 'A2A-Version': '1.0' },
) {
  const started = Date.now();
  const { status, body } = await rpc(echo(), method, params, headers);
  expect(status).toBe(200);
  expect(body.error?.code).toBe(-32602);
  expect(body.error?.message).toMatch(field);
  expect(Date.now() - started).toBeLessThan(2_000);
}

async function restSend(body: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${echo()}/message:send`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

describe('the binding limits are checked at the edge, with the envelope schema’s own numbers', () => {
  it('a contextId over 256 characters is refused at once (it used to pass, be dropped by the agent, and hang 60 s)', async () => {
    await expectInvalidParams(
      'SendMessage',
      v1({ contextId: 'c'.repeat(300) }),
      /message\.contextId: at most 256 characters \(got 300\)/,
    );
    await expectInvalidParams(
      'message/send',
      v03({ contextId: 'c'.repeat(300) }),
      /message\.contextId: at most 256 characters \(got 300\)/,
      V03,
    );
    const rest = await restSend(v1({ contextId: 'c'.repeat(300) }));
    expect(rest.status).toBe(400);
    expect(rest.json.error.message).toMatch(/message\.contextId: at most 256 characters \(got 300\)/);
  });

  it('the ProtoJSON spelling context_id is held to the same limit', async () => {
    await expectInvalidParams(
      'SendMessage',
      v1({ context_id: 'c'.repeat(257) }),
      /message\.context_id: at most 256 characters \(got 257\)/,
    );
  });

  it('a contextId of exactly 256 characters goes through and is answered', async () => {
    const contextId = 'c'.repeat(MAX_CONTEXT_ID_CHARS);
    const { body } = await rpc(echo(), 'SendMessage', v1({ contextId }));
    expect(body.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(body.result.task.contextId).toBe(contextId);
  });

  it('a taskId over 128 characters is refused', async () => {
    await expectInvalidParams(
      'SendMessage',
      v1({ taskId: 't'.repeat(MAX_ID_CHARS + 1) }),
      /message\.taskId: at most 128 characters \(got 129\)/,
    );
    await expectInvalidParams(
      'message/send',
      v03({ taskId: 't'.repeat(200) }),
      /message\.taskId: at most 128 characters/,
      V03,
    );
  });

  it('a skill name outside 1–256 characters is refused, wherever the message names it', async () => {
    const long = 's'.repeat(MAX_SKILL_CHARS + 1);
    await expectInvalidParams(
      'SendMessage',
      v1({ metadata: { skill: long } }),
      /message\.metadata\.skill: at most 256 characters \(got 257\)/,
    );
    await expectInvalidParams(
      'SendMessage',
      v1({ metadata: { skill: '' } }),
      /message\.metadata\.skill: must not be empty/,
    );
    await expectInvalidParams(
      'SendMessage',
      v1({ parts: [{ text: 'x' }, { data: { skill: long } }] }),
      /message\.parts\[1\]\.data\.skill: at most 256 characters/,
    );
    await expectInvalidParams(
      'message/send',
      v03({ parts: [{ kind: 'data', data: { skill: long } }] }),
      /message\.parts\[0\]\.data\.skill/,
      V03,
    );
  });

  it('a raw part must be base64 text, a url part non-empty', async () => {
    await expectInvalidParams(
      'SendMessage',
      v1({ parts: [{ raw: 'not base64!' }] }),
      /message\.parts\[0\]\.raw: must be base64/,
    );
    await expectInvalidParams(
      'SendMessage',
      v1({ parts: [{ url: '' }] }),
      /message\.parts\[0\]\.url: must not be empty/,
    );
  });
});

describe('U+0000 in what the gateway keeps as text of its own', () => {
  // PostgreSQL's text refuses the NUL character (SQLite's cuts it off): on PostgreSQL these were HTTP 500.
  const NUL = /must not contain the NUL character \(U\+0000\)/;

  it('is refused in ids, a context, a page token and a push config, naming the field, on every face', async () => {
    await expectInvalidParams('SendMessage', v1({ contextId: 'a\u0000b' }), /message\.contextId/);
    await expectInvalidParams('SendMessage', v1({ messageId: 'm\u0000' }), NUL);
    await expectInvalidParams('GetTask', { id: 'a\u0000b' }, NUL);
    await expectInvalidParams('ListTasks', { contextId: 'a\u0000b' }, /contextId: must not contain/);
    await expectInvalidParams(
      'SendMessage',
      { ...v1(), configuration: { taskPushNotificationConfig: { url: 'https://hook.example/a2a', token: 't\u0000' } } },
      /taskPushNotificationConfig\.token: must not contain/,
    );
    await expectInvalidParams('tasks/get', { id: 'a\u0000b' }, NUL, {});
    const page = Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000Z', 'a\u0000b'])).toString('base64url');
    await expectInvalidParams('ListTasks', { pageToken: page }, /is not one this server issued/);
    const rest = await fetch(`${echo()}/tasks/a%00b`, { headers: { 'A2A-Version': '1.0' } });
    expect(rest.status).toBe(400);
    expect(((await rest.json()) as { error: { message: string } }).error.message).toMatch(NUL);
  });

  it('is carried in a message’s text, which is not kept in a column', async () => {
    const { body } = await rpc(echo(), 'SendMessage', v1({ parts: [{ text: 'a\u0000b' }] }), { 'A2A-Version': '1.0' });
    expect(body.result?.task?.status?.state).toBe('TASK_STATE_COMPLETED');
    expect(JSON.stringify(body.result.task.artifacts)).toContain('a\\u0000b');
  });
});

describe('a lone surrogate, valid JSON but no Unicode text', () => {
  const LONE = /lone surrogate/;

  it('is refused wherever it is, on every face, under the request’s id; a pair is carried', async () => {
    await expectInvalidParams('SendMessage', v1({ parts: [{ text: 'a\ud800b' }] }), LONE);
    await expectInvalidParams('SendMessage', v1({ metadata: { ['k\udc00']: 1 } }), LONE);
    await expectInvalidParams('message/send', v03({ parts: [{ kind: 'text', text: '\udfff' }] }), LONE, V03);
    const rest = await restSend(v1({ parts: [{ text: 'x\ud83d' }] }));
    expect(rest.status).toBe(400);
    expect(rest.json.error.message).toMatch(LONE);
    const { body } = await rpc(echo(), 'SendMessage', v1({ parts: [{ text: 'a\ud83d\ude00b' }] }), {
      'A2A-Version': '1.0',
    });
    expect(JSON.stringify(body.result.task.artifacts)).toContain('a😀b');
  });
});

describe('deeply nested JSON', () => {
  const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
  const sendWithData = (data: string) =>
    `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":{"messageId":"deep-${Math.random()}","role":"ROLE_USER","parts":[{"data":${data}}]}}}`;
  const post = async (body: string, path = '') => {
    const response = await fetch(`${echo()}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body,
    });
    return { status: response.status, json: await response.json() };
  };

  it('5,000 levels is invalid params naming the limit (as the README says), not HTTP 500 "Maximum call stack size exceeded"', async () => {
    const { status, json } = await post(sendWithData(nested(5_000)));
    expect(status).toBe(200);
    expect(json.error.code).toBe(-32602);
    expect(json.id).toBe(7);
    expect(json.error.message).toMatch(new RegExp(`more than ${MAX_JSON_DEPTH} levels`));
    expect(JSON.stringify(json)).not.toMatch(/call stack/);
  });

  it('exactly the limit is served; one more level is refused', async () => {
    // The request itself takes 5 levels down to the part's data: {params {message {parts [{data …
    const atLimit = await post(sendWithData(nested(MAX_JSON_DEPTH - 5)));
    expect(atLimit.json.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    const over = await post(sendWithData(nested(MAX_JSON_DEPTH - 4)));
    expect(over.json.error.code).toBe(-32602);
  });

  it('deep text that is not JSON is a parse error, on JSON-RPC and on the v0.3 REST face', async () => {
    const broken = sendWithData(nested(5_000)).slice(0, -1);
    const rpcAnswer = await post(broken);
    expect(rpcAnswer.json.error.code).toBe(-32700);
    expect(rpcAnswer.json.id).toBeNull();
    const legacy = await fetch(`${echo()}/v1/message:send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: `{"message":${nested(5_000)}`,
    });
    expect(legacy.status).toBe(400);
    expect((await legacy.json()).code).toBe(-32700);
    const rest = await post(`{"message":${nested(5_000)}`, '/message:send');
    expect(rest.status).toBe(400);
    expect(rest.json.error.message).toMatch(/not valid JSON/);
  });

  it('brackets inside strings do not count', async () => {
    const { json } = await post(sendWithData(JSON.stringify({ text: '['.repeat(10_000) })));
    expect(json.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('wrong-typed fields are refused, not coerced (v1.0)', () => {
  it.each([
    ['messageId: true', { messageId: true }, /message\.messageId: must be a string \(got a boolean\)/],
    ['role: 123', { role: 123 }, /message\.role: must be one of .*ROLE_USER.* \(got 123\)/],
    ['role: "user" (a v0.3 role)', { role: 'user' }, /message\.role: must be one of/],
    ['no role', { role: undefined }, /message\.role: is required/],
    ['no messageId', { messageId: undefined }, /message\.messageId: is required/],
    ['text: {}', { parts: [{ text: {} }] }, /message\.parts\[0\]\.text: must be a string \(got an object\)/],
    ['raw: 123', { parts: [{ raw: 123 }] }, /message\.parts\[0\]\.raw: must be a string \(got a number\)/],
    ['url: 5', { parts: [{ url: 5 }] }, /message\.parts\[0\]\.url: must be a string/],
    [
      'two contents in one part',
      { parts: [{ text: 'a', url: 'https://example.com' }] },
      /message\.parts\[0\]: exactly one of text, raw, url or data \(got text, url\)/,
    ],
    ['an empty part', { parts: [{}] }, /message\.parts\[0\]: needs one of text, raw, url or data/],
    ['filename: 1', { parts: [{ text: 'a', filename: 1 }] }, /message\.parts\[0\]\.filename: must be a string/],
    [
      'mediaType: []',
      { parts: [{ text: 'a', mediaType: [] }] },
      /message\.parts\[0\]\.mediaType: must be a string \(got an array\)/,
    ],
    [
      'part metadata: "x"',
      { parts: [{ text: 'a', metadata: 'x' }] },
      /message\.parts\[0\]\.metadata: must be an object/,
    ],
    ['message metadata: []', { metadata: [] }, /message\.metadata: must be an object \(got an array\)/],
    ['extensions: "urn:x"', { extensions: 'urn:x' }, /message\.extensions: must be an array/],
    ['referenceTaskIds: [1]', { referenceTaskIds: [1] }, /message\.referenceTaskIds\[0\]: must be a string/],
    ['no parts', { parts: [] }, /message\.parts: at least 1 item \(got 0\)/],
  ])('%s', async (_name, change, field) => {
    await expectInvalidParams('SendMessage', v1(change), field);
  });

  it('configuration and other params', async () => {
    await expectInvalidParams(
      'SendMessage',
      { ...v1(), configuration: { returnImmediately: 'false' } },
      /configuration\.returnImmediately: must be true or false \(got a string\)/,
    );
    await expectInvalidParams(
      'SendMessage',
      { ...v1(), configuration: { historyLength: -1 } },
      /configuration\.historyLength: must be 0 or more \(got -1\)/,
    );
    await expectInvalidParams(
      'SendMessage',
      { ...v1(), configuration: { historyLength: 1.5 } },
      /configuration\.historyLength: must be a whole number/,
    );
    await expectInvalidParams(
      'SendMessage',
      { ...v1(), metadata: 'x' },
      /^Invalid params: metadata: must be an object/,
    );
    await expectInvalidParams('SendMessage', { message: null }, /message: must be an object \(got null\)/);
    await expectInvalidParams('SendStreamingMessage', v1({ messageId: 5 }), /message\.messageId: must be a string/);
  });

  it('nothing refused was created', async () => {
    const before = (await rpc(echo(), 'ListTasks', {})).body.result.totalSize;
    await rpc(echo(), 'SendMessage', v1({ role: 123 }));
    await rpc(echo(), 'SendMessage', v1({ parts: [{ text: {} }] }));
    expect((await rpc(echo(), 'ListTasks', {})).body.result.totalSize).toBe(before);
  });

  it('other methods: ids, page sizes and flags of the wrong type', async () => {
    await expectInvalidParams('GetTask', { id: 123 }, /^Invalid params: id: must be a string \(got a number\)/);
    await expectInvalidParams('GetTask', { id: {} }, /id: must be a string \(got an object\)/);
    await expectInvalidParams('GetTask', { id: 'x', historyLength: '2' }, /historyLength: must be a number/);
    await expectInvalidParams('CancelTask', { id: ['x'] }, /id: must be a string \(got an array\)/);
    await expectInvalidParams('SubscribeToTask', { id: false }, /id: must be a string/);
    await expectInvalidParams('ListTasks', { pageSize: '5' }, /pageSize: must be a number \(got a string\)/);
    await expectInvalidParams('ListTasks', { includeArtifacts: 'yes' }, /includeArtifacts: must be true or false/);
    await expectInvalidParams('ListTasks', { contextId: 5 }, /contextId: must be a string/);
    await expectInvalidParams('GetTask', undefined, /^Invalid params: params: is required/);
  });

  it('params as an array is -32602 (a valid JSON-RPC request whose params A2A cannot take), not -32600', async () => {
    await expectInvalidParams('GetTask', ['some-id'], /params must be an object/);
  });
});

describe('wrong-typed fields are refused, not coerced (v0.3)', () => {
  it.each([
    ['text: 5', { parts: [{ kind: 'text', text: 5 }] }, /message\.parts\[0\]\.text: must be a string \(got a number\)/],
    [
      'file bytes: 5',
      { parts: [{ kind: 'file', file: { bytes: 5 } }] },
      /message\.parts\[0\]\.file\.bytes: must be a string/,
    ],
    [
      'file with bytes and uri',
      { parts: [{ kind: 'file', file: { bytes: 'aGk=', uri: 'https://example.com/x' } }] },
      /message\.parts\[0\]\.file: exactly one of bytes or uri/,
    ],
    [
      'file without content',
      { parts: [{ kind: 'file', file: { name: 'x' } }] },
      /message\.parts\[0\]\.file: needs bytes or uri/,
    ],
    [
      'file mimeType: 1',
      { parts: [{ kind: 'file', file: { uri: 'https://example.com/x', mimeType: 1 } }] },
      /message\.parts\[0\]\.file\.mimeType: must be a string/,
    ],
    ['data: 5', { parts: [{ kind: 'data', data: 5 }] }, /message\.parts\[0\]\.data: must be an object/],
    [
      'unknown kind',
      { parts: [{ kind: 'image', image: 'x' }] },
      /message\.parts\[0\]\.kind: must be one of "text", "file", "data" \(got "image"\)/,
    ],
    ['a v1.0 part', { parts: [{ text: 'hi' }] }, /message\.parts\[0\]\.kind/],
    ['role: "ROLE_USER" (a v1.0 role)', { role: 'ROLE_USER' }, /message\.role: must be one of "user", "agent"/],
    ['messageId: 1', { messageId: 1 }, /message\.messageId: must be a string/],
    ['kind: "task"', { kind: 'task' }, /message\.kind: must be "message"/],
    ['extensions: "x"', { extensions: 'x' }, /message\.extensions: must be an array/],
  ])('%s', async (_name, change, field) => {
    await expectInvalidParams('message/send', v03(change), field, V03);
  });

  it('configuration and other methods', async () => {
    await expectInvalidParams(
      'message/send',
      { ...v03(), configuration: { blocking: 'yes' } },
      /configuration\.blocking: must be true or false/,
      V03,
    );
    await expectInvalidParams(
      'message/stream',
      v03({ parts: [{ kind: 'text', text: null }] }),
      /message\.parts\[0\]\.text: must be a string \(got null\)/,
      V03,
    );
    await expectInvalidParams('tasks/get', { id: 123 }, /id: must be a string/, V03);
    await expectInvalidParams('tasks/cancel', { id: null }, /id: must be a string \(got null\)/, V03);
    await expectInvalidParams(
      'tasks/pushNotificationConfig/set',
      { taskId: 'x' },
      /pushNotificationConfig: is required/,
      V03,
    );
  });

  it('a push config without a url is -32602 naming the field, not -32603 (message/send and message/stream)', async () => {
    for (const method of ['message/send', 'message/stream']) {
      await expectInvalidParams(
        method,
        { ...v03(), configuration: { pushNotificationConfig: {} } },
        /configuration\.pushNotificationConfig\.url: is required/,
        V03,
      );
    }
  });

  it('a well-formed v0.3 message still goes through', async () => {
    const { body } = await rpc(echo(), 'message/send', v03({ parts: [{ kind: 'text', text: 'fine' }] }), V03);
    expect(body.result?.status?.state).toBe('completed');
  });
});

describe('a push config without a url, on every face', () => {
  const v03Rest = async (body: unknown) => {
    const response = await fetch(`${echo()}/v1/message:send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, json: await response.json() };
  };
  const restMessage = { messageId: `p-${Math.random()}`, role: 'ROLE_USER', content: [{ text: 'hi' }] };

  it('v0.3 HTTP+JSON: 400, -32602, naming the field', async () => {
    const { status, json } = await v03Rest({ message: restMessage, configuration: { pushNotification: {} } });
    expect(status).toBe(400);
    expect(json.code).toBe(-32602);
    expect(json.message).toMatch(/configuration\.pushNotification\.url/);
  });

  it('v1.0 JSON-RPC and HTTP+JSON: -32602 / 400, naming the field', async () => {
    const params = { ...v1(), configuration: { taskPushNotificationConfig: {} } };
    await expectInvalidParams('SendMessage', params, /configuration\.taskPushNotificationConfig\.url: is required/);
    await expectInvalidParams(
      'SendStreamingMessage',
      params,
      /configuration\.taskPushNotificationConfig\.url: is required/,
    );
    const rest = await restSend(params);
    expect(rest.status).toBe(400);
    expect(rest.json.error.message).toMatch(/configuration\.taskPushNotificationConfig\.url: is required/);
  });
});

describe('routes under /v1/ (the v0.3 HTTP+JSON face) refuse in the v0.3 error shape', () => {
  it('405 for a method the route does not take, with Allow', async () => {
    const response = await fetch(`${echo()}/v1/message:send`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    const body = await response.json();
    expect(body).toEqual({ code: -32601, message: expect.stringMatching(/Use POST/) });
  });

  it('404 for a path that is no route', async () => {
    const response = await fetch(`${echo()}/v1/nothing-here`, { method: 'POST' });
    expect(response.status).toBe(404);
    const body = await response.json();
    expect(body).toEqual({ code: -32601, message: expect.stringMatching(/No route POST \/v1\/nothing-here/) });
  });

  it('the v1.0 face keeps its own shape', async () => {
    const response = await fetch(`${echo()}/nothing-here`, { method: 'POST' });
    expect(response.status).toBe(404);
    expect((await response.json()).error.status).toBe('NOT_FOUND');
  });
});

describe('a JSON-RPC notification (no id member) gets no answer, and nothing is done for it', () => {
  const notify = (
    method: string,
    params: unknown,
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = { 'A2A-Version': '1.0' },
  ) =>
    fetch(echo(), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', method, params, ...extra }),
    });

  it('204 with an empty body, and no task is created', async () => {
    const before = (await rpc(echo(), 'ListTasks', {})).body.result.totalSize;
    for (const [method, params] of [
      ['SendMessage', v1()],
      ['SendStreamingMessage', v1()],
      ['GetTask', { id: 'missing' }],
      ['NoSuchMethod', {}],
      ['SendMessage', v1({ role: 123 })],
    ] as const) {
      const response = await notify(method, params);
      expect(response.status).toBe(204);
      expect(await response.text()).toBe('');
    }
    // v0.3 notifications alike, among them the two bodies the v0.3 TCK sends without an id and expects -32601 and
    // -32602 for (A2A v0.3 §6.11.1: "If it is not included it is assumed to be a notification").
    for (const [method, params] of [
      ['message/send', v03()],
      ['message/ssend', {}],
      ['message/send', { '': 'not_a_dict' }],
    ] as const) {
      const legacy = await notify(method, params, {}, V03);
      expect(legacy.status).toBe(204);
      expect(await legacy.text()).toBe('');
    }
    expect((await rpc(echo(), 'ListTasks', {})).body.result.totalSize).toBe(before);
  });

  it('a request with "id": null is not a notification, and a broken envelope is answered', async () => {
    const withNullId = await notify('GetTask', { id: 'missing' }, { id: null });
    expect((await withNullId.json()).error.code).toBe(-32001);
    const broken = await fetch(echo(), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ method: 'GetTask', params: { id: 'x' } }),
    });
    const answer = await broken.json();
    expect(answer.error.code).toBe(-32600);
    expect(answer.id).toBeNull();
  });
});

describe('internal errors say nothing of their cause', () => {
  it('-32603 carries a generic message; the detail is logged, not sent', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const failing = vi
      .spyOn(bed.gateway.engine, 'getTask')
      .mockRejectedValue(new Error('SQLITE_IOERR: disk I/O error in /var/lib/secret.db'));
    try {
      const { status, body } = await rpc(echo(), 'GetTask', { id: 'anything' });
      expect(status).toBe(500);
      expect(body.error?.code).toBe(-32603);
      expect(body.error?.message).toBe('Internal error; the gateway logged the details.');
      expect(JSON.stringify(body)).not.toMatch(/SQLITE|secret/);
      const streamed = await rpc(echo(), 'SubscribeToTask', { id: 'anything' });
      expect(streamed.body.error?.code).toBe(-32603);
      expect(JSON.stringify(streamed.body)).not.toMatch(/SQLITE|secret/);
      expect(error.mock.calls.some((call) => String(call[1]).includes('SQLITE_IOERR'))).toBe(true);
    } finally {
      failing.mockRestore();
      error.mockRestore();
    }
  });
});

describe('a refused body that was not read to its end closes the connection', () => {
  let small: TestBed;
  beforeAll(async () => (small = await startTestBed({ config: { maxBodyBytes: 4096 } })));
  afterAll(() => small?.close());

  /** A raw HTTP/1.1 POST (chunked unless a length is given); resolves with the response head. */
  function post(path: string, headers: Record<string, string>, chunks: string[]): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const url = new URL(path, small.gateway.url);
      const request = httpRequest(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers },
        (response) => {
          response.resume();
          resolve(response);
        },
      );
      request.on('error', (error) =>
        (error as NodeJS.ErrnoException).code === 'EPIPE' || (error as NodeJS.ErrnoException).code === 'ECONNRESET'
          ? undefined
          : reject(error),
      );
      for (const chunk of chunks) request.write(chunk);
      request.end();
    });
  }
  const json = { 'Content-Type': 'application/json', 'A2A-Version': '1.0' };
  const big = Array.from({ length: 10 }, () => 'x'.repeat(1_000));

  it('413 on a chunked body says Connection: close', async () => {
    const response = await post('/agents/echo', json, big);
    expect(response.statusCode).toBe(413);
    expect(response.headers.connection).toBe('close');
  });

  it('413 on a declared Content-Length says Connection: close', async () => {
    const response = await post('/agents/echo', { ...json, 'Content-Length': String(10_000) }, big);
    expect(response.statusCode).toBe(413);
    expect(response.headers.connection).toBe('close');
  });

  it('a refusal before the body is read (wrong Content-Type) says Connection: close', async () => {
    const response = await post('/agents/echo', { 'Content-Type': 'text/plain', 'A2A-Version': '1.0' }, ['hello']);
    expect(response.headers.connection).toBe('close');
  });

  it('a request read to its end keeps the connection', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'missing' } });
    const response = await post('/agents/echo', { ...json, 'Content-Length': String(Buffer.byteLength(body)) }, [body]);
    expect(response.statusCode).toBe(200);
    expect(response.headers.connection).toBe('keep-alive');
  });
});

/**
 * A client that sends the whole request before it reads anything, as Python's http.client and many others do: it
 * POSTs `bytes` bytes (chunked unless `declare`) over a socket it does not read from until the last byte is out,
 * then reads the answer. A server that answers early and closes makes it fail with EPIPE or ECONNRESET, the
 * answer lost.
 */
function postBig(
  path: string,
  bytes: number,
  { declare = true, headers = {} }: { declare?: boolean; headers?: Record<string, string> } = {},
  base = bed.gateway.url,
): Promise<{ status: number; head: string; body: any }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, base);
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    socket.pause();
    socket.on('error', reject);
    const fields = {
      'Content-Type': 'application/json',
      ...(declare ? { 'Content-Length': String(bytes) } : { 'Transfer-Encoding': 'chunked' }),
      ...headers,
    };
    const head = [
      `POST ${url.pathname} HTTP/1.1`,
      `Host: ${url.host}`,
      ...Object.entries(fields).map(([name, value]) => `${name}: ${value}`),
    ];
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
    const piece = Buffer.alloc(64 * 1024, 'x');
    for (let sent = 0; sent < bytes; sent += piece.length) {
      const data = piece.subarray(0, Math.min(piece.length, bytes - sent));
      socket.write(
        declare ? data : Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]),
      );
    }
    // Only once every byte has been handed to the kernel does it read.
    socket.write(declare ? '' : '0\r\n\r\n', () => {
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const [responseHead = '', responseBody = ''] = text.split('\r\n\r\n', 2);
        resolve({ status: Number(responseHead.split(' ')[1]), head: responseHead, body: JSON.parse(responseBody) });
      });
      socket.resume();
    });
  });
}
const MB = 1024 * 1024;

describe('413 reaches the client over a real socket, however much it sends', () => {
  it('a 5 MB JSON-RPC body, declared or chunked: 413 with its JSON-RPC error', async () => {
    for (const declare of [true, false]) {
      const answer = await postBig('/agents/echo', 5 * MB, { declare, headers: { 'A2A-Version': '1.0' } });
      expect(answer.status).toBe(413);
      expect(answer.body.error.code).toBe(-32600);
      expect(answer.body.error.message).toMatch(/exceeds the limit of 1048576 bytes/);
      expect(answer.head).toMatch(/\r\nconnection: close/i);
    }
  });

  it('a 2 MB and a 5 MB HTTP+JSON body, v1.0 and v0.3: 413', async () => {
    for (const size of [2 * MB, 5 * MB]) {
      const v1Answer = await postBig('/agents/echo/message:send', size);
      expect(v1Answer.status).toBe(413);
      expect(v1Answer.body.error.message).toMatch(/exceeds the limit/);
      const legacy = await postBig('/agents/echo/v1/message:send', size, { declare: false });
      expect(legacy.status).toBe(413);
      expect(legacy.body.message).toMatch(/exceeds the limit/);
    }
  });
});

describe('a refusal before the body is read reaches a client still sending it too', () => {
  it.each([
    ['JSON-RPC, wrong Content-Type', '/agents/echo', { 'Content-Type': 'text/plain' }, 200, -32005],
    [
      'v1.0 HTTP+JSON, wrong Content-Type',
      '/agents/echo/message:send',
      { 'Content-Type': 'text/plain' },
      415,
      undefined,
    ],
    [
      'v0.3 HTTP+JSON, wrong Content-Type',
      '/agents/echo/v1/message:send',
      { 'Content-Type': 'text/plain' },
      415,
      -32005,
    ],
    ['v0.3 HTTP+JSON, the v1.0 version', '/agents/echo/v1/message:send', { 'A2A-Version': '1.0' }, 400, -32009],
    ['v1.0 HTTP+JSON, the v0.3 version', '/agents/echo/message:send', { 'A2A-Version': '0.3' }, 400, undefined],
  ])('%s, 5 MB', async (_name, path, headers, status, code) => {
    const answer = await postBig(path, 5 * MB, { headers });
    expect(answer.status).toBe(status);
    if (code !== undefined) expect(answer.body.code ?? answer.body.error.code).toBe(code);
    expect(answer.head).toMatch(/\r\nconnection: close/i);
  });

  it('no API key on a gateway that wants one, 5 MB: 401', async () => {
    const keyed = await startTestBed({ config: { apiKeys: [{ name: 'a', key: 'a-key-of-16-chars-or-more' }] } });
    try {
      const answer = await postBig('/agents/echo', 5 * MB, { headers: { 'A2A-Version': '1.0' } }, keyed.gateway.url);
      expect(answer.status).toBe(401);
      expect(answer.head).toMatch(/\r\nconnection: close/i);
    } finally {
      await keyed.close();
    }
  });
});

describe('the operator API is not callable cross-origin', () => {
  let admin: TestBed;
  const token = 'an-admin-token-of-enough-length';
  beforeAll(async () => (admin = await startTestBed({ config: { adminToken: token } })));
  afterAll(() => admin?.close());

  it('/admin responses carry no CORS headers', async () => {
    const response = await admin.gateway.app.request('/admin/approvals', {
      headers: { Origin: 'https://evil.example', Authorization: `Bearer ${token}` },
    });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const refused = await admin.gateway.app.request('/admin/approvals', {
      headers: { Origin: 'https://evil.example' },
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('a preflight under /admin is granted nothing; A2A paths keep their CORS', async () => {
    const preflight = {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://evil.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization',
      },
    };
    for (const path of ['/admin/approvals', '/admin/approvals/x/approve', '/admin']) {
      const response = await admin.gateway.app.request(path, preflight);
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(response.headers.get('access-control-allow-headers')).toBeNull();
      expect(response.headers.get('access-control-allow-methods')).toBeNull();
    }
    const a2a = await admin.gateway.app.request('/agents/echo', preflight);
    expect(a2a.headers.get('access-control-allow-origin')).toBe('*');
    expect(a2a.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
  });
});
