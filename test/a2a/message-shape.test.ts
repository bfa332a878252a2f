/** The edge check of request params: which version's shapes, ProtoJSON aliases, the binding's limits, the wording. */
import * as compat from '@a2a-js/sdk/compat/v0_3';
import { describe, expect, it } from 'vitest';
import {
  checkedMethods,
  isPlainSend,
  paramsProblem,
  pathIdsProblem,
  sendParamsProblem,
} from '../../src/a2a/message-shape.ts';
import { MAX_CONTEXT_ID_CHARS, MAX_ID_CHARS, MAX_SKILL_CHARS } from '../../src/logos/envelope.ts';

const v1 = (message: Record<string, unknown> = {}, rest: Record<string, unknown> = {}) => ({
  message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }], ...message },
  ...rest,
});
const v03 = (message: Record<string, unknown> = {}) => ({
  message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'hi' }], ...message },
});

describe('sendParamsProblem (v1.0 by default, as the HTTP+JSON binding calls it)', () => {
  it('accepts every part kind with its optional fields, nulls as absent', () => {
    expect(
      sendParamsProblem(
        v1(
          {
            parts: [
              { text: 'a', metadata: { k: 1 } },
              { raw: 'aGVsbG8=', filename: 'h.txt', mediaType: 'text/plain' },
              { url: 'https://example.com/x', media_type: 'application/pdf' },
              { data: [1, 2] },
              { data: { skill: 'echo', params: {} } },
            ],
            contextId: null,
            taskId: 't',
            metadata: { skill: 'echo' },
            extensions: ['urn:x'],
            referenceTaskIds: ['r'],
          },
          {
            configuration: { historyLength: 0, returnImmediately: true, acceptedOutputModes: ['text/plain'] },
            metadata: {},
            tenant: '',
          },
        ),
      ),
    ).toBeUndefined();
  });

  it('accepts the ProtoJSON spellings, and the numeric roles', () => {
    expect(
      sendParamsProblem({
        message: { message_id: 'm', role: 1, parts: [{ text: 'x' }], context_id: 'c', task_id: 't' },
      }),
    ).toBeUndefined();
    expect(
      sendParamsProblem({
        message: { message_id: 'm', role: 2, parts: [{ text: 'x' }] },
        configuration: { history_length: 1, return_immediately: false },
      }),
    ).toBeUndefined();
  });

  it('holds ids and skills to the envelope limits, exactly', () => {
    expect(sendParamsProblem(v1({ contextId: 'c'.repeat(MAX_CONTEXT_ID_CHARS) }))).toBeUndefined();
    expect(sendParamsProblem(v1({ contextId: 'c'.repeat(MAX_CONTEXT_ID_CHARS + 44) }))).toBe(
      'message.contextId: at most 256 characters (got 300)',
    );
    expect(sendParamsProblem(v1({ task_id: 't'.repeat(MAX_ID_CHARS + 1) }))).toBe(
      'message.task_id: at most 128 characters (got 129)',
    );
    expect(sendParamsProblem(v1({ metadata: { skill: 's'.repeat(MAX_SKILL_CHARS) } }))).toBeUndefined();
    expect(sendParamsProblem(v1({ metadata: { skill: 's'.repeat(MAX_SKILL_CHARS + 1) } }))).toBe(
      'message.metadata.skill: at most 256 characters (got 257)',
    );
  });

  it('checks the skill the message actually calls: the first {skill} data part wins over metadata', () => {
    const long = 's'.repeat(300);
    expect(sendParamsProblem(v1({ parts: [{ data: { skill: 'echo' } }], metadata: { skill: long } }))).toBeUndefined();
    expect(sendParamsProblem(v1({ parts: [{ data: { skill: 'echo' } }, { data: { skill: long } }] }))).toBeUndefined();
    expect(sendParamsProblem(v1({ parts: [{ data: { skill: long } }] }))).toMatch(
      /^message\.parts\[0\]\.data\.skill: at most 256/,
    );
    expect(sendParamsProblem(v1({ metadata: { skill: 5 } }))).toBeUndefined(); // not a skill name: the card's first skill is used
  });

  it('names the first problem and counts the rest', () => {
    expect(sendParamsProblem(v1({ messageId: true, role: 123 }))).toBe(
      'message.messageId: must be a string (got a boolean) (and 1 more problem)',
    );
    expect(sendParamsProblem(null)).toBe('params: must be an object (got null)');
    expect(sendParamsProblem([])).toBe('params: must be an object (got an array)');
  });

  it('takes the v0.3 shapes when asked to', () => {
    expect(sendParamsProblem(v03(), '0.3')).toBeUndefined();
    expect(sendParamsProblem(v03(), '1.0')).toMatch(/^message\.role: must be one of/);
    expect(sendParamsProblem(v1(), '0.3')).toMatch(/^message\.role: must be one of "user", "agent"/);
  });
});

describe('paramsProblem', () => {
  it('knows each version’s methods, and only those', () => {
    expect(paramsProblem('1.0', 'GetTask', { id: 'x', historyLength: 2 })).toBeUndefined();
    expect(paramsProblem('0.3', 'tasks/get', { id: 'x', historyLength: 2 })).toBeUndefined();
    expect(paramsProblem('1.0', 'GetTask', { id: 1 })).toBe('id: must be a string (got a number)');
    expect(paramsProblem('0.3', 'tasks/get', { id: 1 })).toBe('id: must be a string (got a number)');
    expect(paramsProblem('1.0', 'tasks/get', { id: 1 })).toBeUndefined(); // not a v1.0 method: the binding says so
    expect(paramsProblem('1.0', 'NoSuchMethod', 5)).toBeUndefined();
  });

  it('v0.3 message/send and message/stream share the send shape', () => {
    expect(paramsProblem('0.3', 'message/stream', v03({ parts: [{ kind: 'data', data: { a: 1 } }] }))).toBeUndefined();
    expect(
      paramsProblem(
        '0.3',
        'message/send',
        v03({ parts: [{ kind: 'file', file: { uri: 'https://example.com/a', name: 'a', mimeType: 'text/plain' } }] }),
      ),
    ).toBeUndefined();
    expect(paramsProblem('0.3', 'message/send', v03({ contextId: 'c'.repeat(257) }))).toBe(
      'message.contextId: at most 256 characters (got 257)',
    );
  });

  it('ListTasks: filters of the right types pass, coercible ones do not', () => {
    expect(
      paramsProblem('1.0', 'ListTasks', {
        status: 'TASK_STATE_WORKING',
        pageSize: 10,
        includeArtifacts: true,
        page_token: 'x',
      }),
    ).toBeUndefined();
    expect(paramsProblem('1.0', 'ListTasks', { include_artifacts: 'true' })).toBe(
      'include_artifacts: must be true or false (got a string)',
    );
  });

  it('ListTasks: a page of 1 to 100 tasks, a known task state, an ISO 8601 time', () => {
    expect(
      paramsProblem('1.0', 'ListTasks', { pageSize: 100, status: 3, statusTimestampAfter: '2026-05-01T12:00:00Z' }),
    ).toBeUndefined();
    expect(paramsProblem('1.0', 'ListTasks', { pageSize: 1000 })).toBe('pageSize: at most 100 (got 1000)');
    expect(paramsProblem('1.0', 'ListTasks', { page_size: 0 })).toBe('page_size: must be 1 or more (got 0)');
    expect(paramsProblem('1.0', 'ListTasks', { status: 'TASK_STATE_BOGUS' })).toBe(
      'status: must be a task state such as TASK_STATE_WORKING or TASK_STATE_COMPLETED',
    );
    expect(paramsProblem('1.0', 'ListTasks', { statusTimestampAfter: 'yesterday' })).toBe(
      'statusTimestampAfter: must be an ISO 8601 timestamp',
    );
  });

  it("a push config has one shape wherever it comes: the create params and a send's configuration", () => {
    expect(
      paramsProblem('1.0', 'CreateTaskPushNotificationConfig', {
        taskId: 't',
        url: 'https://hooks.example/a',
        authentication: { scheme: 'Bearer' },
      }),
    ).toBeUndefined();
    expect(paramsProblem('1.0', 'CreateTaskPushNotificationConfig', { taskId: 't' })).toBe('url: is required');
    expect(
      paramsProblem('1.0', 'CreateTaskPushNotificationConfig', { url: 'https://hooks.example/a', id: 'i'.repeat(257) }),
    ).toBe('id: at most 256 characters (got 257)');
    expect(sendParamsProblem(v1({}, { configuration: { taskPushNotificationConfig: { url: 7 } } }))).toBe(
      'configuration.taskPushNotificationConfig.url: must be a string (got a number)',
    );
  });

  it('a v0.3 push config is held to the same id bound, and to its authentication’s shape', () => {
    const set = (pushNotificationConfig: Record<string, unknown>) =>
      paramsProblem('0.3', compat.LEGACY_METHOD_PUSH_NOTIFICATION_CONFIG_SET, {
        taskId: 't',
        pushNotificationConfig: { url: 'https://hooks.example/a', ...pushNotificationConfig },
      });
    // Longer ids did not fit PostgreSQL's index of configs and deliveries: a 500, or a task's notifications lost.
    expect(set({ id: 'i'.repeat(256) })).toBeUndefined();
    expect(set({ id: 'i'.repeat(257) })).toBe('pushNotificationConfig.id: at most 256 characters (got 257)');
    expect(set({ authentication: { schemes: ['Bearer'], credentials: 'c' } })).toBeUndefined();
    // Taken as any object, these were an internal error further in.
    expect(set({ authentication: { schemes: 'Bearer' } })).toMatch(
      /^pushNotificationConfig\.authentication\.schemes: /,
    );
    expect(set({ authentication: { schemes: [], credentials: {} } })).toMatch(
      /^pushNotificationConfig\.authentication\.credentials: /,
    );
    expect(set({ id: 'a\u0000b' })).toMatch(/NUL/);
  });

  it('ids in a REST path are refused with a NUL character, as in a body', () => {
    expect(pathIdsProblem({ name: 'get', taskId: 't' })).toBeUndefined();
    expect(pathIdsProblem({ name: 'get', taskId: 't\0' })).toMatch(/task id in the path/);
    expect(pathIdsProblem({ name: 'pushConfig', taskId: 't', configId: 'c\0' })).toMatch(/config id in the path/);
    expect(pathIdsProblem({ name: 'send' })).toBeUndefined();
  });

  it('GetExtendedAgentCard takes no params at all', () => {
    expect(paramsProblem('1.0', 'GetExtendedAgentCard', undefined)).toBeUndefined();
  });

  it('has a schema for every method of the SDK, and for nothing else; names of Object.prototype are no method', () => {
    const legacy = Object.entries(compat).flatMap(([name, value]) =>
      name.startsWith('LEGACY_METHOD_') ? [value as string] : [],
    );
    expect([...checkedMethods('0.3')].sort()).toEqual(legacy.sort());
    expect(checkedMethods('1.0').every((method) => compat.isV1JsonRpcMethod(method))).toBe(true);
    expect(checkedMethods('1.0')).toEqual(
      expect.arrayContaining(legacy.map((method) => compat.legacyJsonRpcToV1Method(method))),
    );
    expect(paramsProblem('1.0', 'toString', {})).toBeUndefined();
    expect(paramsProblem('0.3', 'constructor', {})).toBeUndefined();
  });
});

describe('isPlainSend, the hand-checked shape of most sends', () => {
  /** The schema's verdict alone: a top-level member it does not know (and ignores) keeps the hand check out. */
  const schemaProblem = (params: Record<string, unknown>) => paramsProblem('1.0', 'SendMessage', { ...params, zz: 1 });
  const values: unknown[] = [
    undefined,
    null,
    '',
    'x',
    'a\u0000b',
    'x'.repeat(MAX_ID_CHARS),
    'x'.repeat(MAX_ID_CHARS + 1),
    'x'.repeat(MAX_CONTEXT_ID_CHARS),
    'x'.repeat(MAX_CONTEXT_ID_CHARS + 1),
    0,
    1,
    2,
    true,
    {},
    [],
    'ROLE_USER',
    'ROLE_AGENT',
    'ROLE_UNSPECIFIED',
    [{ text: 'a' }],
    [{ text: 'a' }, { text: '' }],
    [{ text: 1 }],
    [{ text: 'a', data: { skill: '' } }],
    [{ text: 'a', mediaType: 'text/plain' }],
    [{}],
    [null],
    [[{ text: 'a' }]],
  ];

  it('accepts the plain send, with the optional ids and tenant', () => {
    expect(isPlainSend(v1())).toBe(true);
    expect(isPlainSend(v1({ contextId: 'c', taskId: 't', role: 'ROLE_AGENT' }, { tenant: 'x' }))).toBe(true);
    expect(schemaProblem(v1({ parts: [] }))).toBe('message.parts: at least 1 item (got 0)');
  });

  it('accepts only what the schema accepts', () => {
    const fields = ['messageId', 'message_id', 'role', 'parts', 'contextId', 'taskId', 'metadata', 'kind'];
    let accepted = 0;
    const check = (params: Record<string, unknown>) => {
      if (!isPlainSend(params)) return;
      accepted++;
      expect(schemaProblem(params), JSON.stringify(params)).toBeUndefined();
    };
    for (const field of fields) {
      for (const value of values) {
        const message: Record<string, unknown> = { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] };
        if (value === undefined) delete message[field];
        else message[field] = value;
        check({ message });
      }
    }
    for (const value of values) {
      check({ ...v1(), tenant: value });
      check({ ...v1(), configuration: value });
      check({ ...v1(), metadata: value });
      check({ message: value });
    }
    expect(accepted).toBeGreaterThan(10);
  });
});
