/** The v0.3 REST wire: v0.3 objects written as v0.3 proto JSON, request bodies read from it, the card's security. */
import { describe, expect, it } from 'vitest';
import { agentCardToProto } from '../../src/a2a/rest-v03-card.ts';
import {
  pushConfigListToProto,
  sendResultToProto,
  streamEventToProto,
  taskPushConfigToProto,
  taskToProto,
  type LegacyMessage,
  type LegacyTask,
} from '../../src/a2a/rest-v03-codec.ts';
import { parseSendMessageRequest, parseTaskPushConfig } from '../../src/a2a/rest-v03-requests.ts';

/** What goes on the wire: undefined fields dropped. */
const wire = (json: unknown) => JSON.parse(JSON.stringify(json));

const agentMessage: LegacyMessage = {
  kind: 'message',
  messageId: 'm-2',
  contextId: 'ctx',
  taskId: 't-1',
  role: 'agent',
  parts: [{ kind: 'text', text: 'working on it' }],
};

const task: LegacyTask = {
  kind: 'task',
  id: 't-1',
  contextId: 'ctx',
  status: { state: 'working', message: agentMessage, timestamp: '2026-01-02T03:04:05.000Z' },
  history: [
    {
      kind: 'message',
      messageId: 'm-1',
      role: 'user',
      parts: [{ kind: 'text', text: 'hi', metadata: { lang: 'en' } }],
    },
  ],
  artifacts: [
    {
      artifactId: 'a-1',
      name: 'result',
      parts: [
        { kind: 'file', file: { bytes: 'aGk=', mimeType: 'text/plain', name: 'hi.txt' } },
        { kind: 'file', file: { uri: 'https://example.com/x.png' } },
        { kind: 'data', data: { count: 42 } },
      ],
    },
  ],
  metadata: { logos: { agentId: 'echo' } },
};

describe('v0.3 objects as proto JSON', () => {
  it('writes a task with its status message, history and every kind of part', () => {
    expect(wire(taskToProto(task))).toEqual({
      id: 't-1',
      contextId: 'ctx',
      status: {
        state: 'TASK_STATE_WORKING',
        message: {
          messageId: 'm-2',
          contextId: 'ctx',
          taskId: 't-1',
          role: 'ROLE_AGENT',
          content: [{ text: 'working on it' }],
        },
        timestamp: '2026-01-02T03:04:05.000Z',
      },
      history: [{ messageId: 'm-1', role: 'ROLE_USER', content: [{ text: 'hi', metadata: { lang: 'en' } }] }],
      artifacts: [
        {
          artifactId: 'a-1',
          name: 'result',
          parts: [
            { file: { fileWithBytes: 'aGk=', mimeType: 'text/plain', name: 'hi.txt' } },
            { file: { fileWithUri: 'https://example.com/x.png' } },
            { data: { data: { count: 42 } } },
          ],
        },
      ],
      metadata: { logos: { agentId: 'echo' } },
    });
  });

  it('spells the task states as the v0.3 proto does', () => {
    const stateOf = (state: LegacyTask['status']['state']) =>
      (taskToProto({ ...task, status: { state } }).status as { state: string }).state;
    expect(stateOf('canceled')).toBe('TASK_STATE_CANCELLED');
    expect(stateOf('input-required')).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(stateOf('auth-required')).toBe('TASK_STATE_AUTH_REQUIRED');
    expect(stateOf('unknown')).toBe('TASK_STATE_UNSPECIFIED');
  });

  it('wraps send results and stream events in their one-of field', () => {
    expect(Object.keys(sendResultToProto(task))).toEqual(['task']);
    expect(wire(sendResultToProto(agentMessage))).toEqual({ message: wire(taskToProto(task)).status.message });
    expect(Object.keys(streamEventToProto(agentMessage))).toEqual(['message']);
    expect(
      wire(
        streamEventToProto({
          kind: 'status-update',
          taskId: 't-1',
          contextId: 'ctx',
          status: { state: 'completed' },
          final: true,
        }),
      ),
    ).toEqual({
      statusUpdate: { taskId: 't-1', contextId: 'ctx', status: { state: 'TASK_STATE_COMPLETED' }, final: true },
    });
    expect(
      wire(
        streamEventToProto({
          kind: 'artifact-update',
          taskId: 't-1',
          contextId: 'ctx',
          artifact: { artifactId: 'a', parts: [{ kind: 'text', text: 'x' }] },
          append: true,
          lastChunk: true,
        }),
      ),
    ).toEqual({
      artifactUpdate: {
        taskId: 't-1',
        contextId: 'ctx',
        artifact: { artifactId: 'a', parts: [{ text: 'x' }] },
        append: true,
        lastChunk: true,
      },
    });
  });

  it('names push configs by resource name', () => {
    const config = {
      taskId: 't-1',
      pushNotificationConfig: {
        id: 'h',
        url: 'https://example.com/hook',
        token: 'tok',
        authentication: { schemes: ['Bearer'], credentials: 'c' },
      },
    };
    expect(wire(taskPushConfigToProto(config))).toEqual({
      name: 'tasks/t-1/pushNotificationConfigs/h',
      pushNotificationConfig: {
        id: 'h',
        url: 'https://example.com/hook',
        token: 'tok',
        authentication: { schemes: ['Bearer'], credentials: 'c' },
      },
    });
    expect(wire(pushConfigListToProto([]))).toEqual({ configs: [] });
  });
});

describe('v0.3 proto JSON request bodies', () => {
  it('reads a SendMessageRequest into v0.3 send params', () => {
    const params = parseSendMessageRequest({
      message: {
        messageId: 'm-1',
        contextId: 'ctx',
        role: 'ROLE_USER',
        content: [
          { text: 'hi', metadata: { lang: 'en' } },
          { file: { fileWithBytes: 'aGk=', mimeType: 'text/plain', name: 'hi.txt' } },
          { file: { fileWithUri: 'https://example.com/x.png' } },
          { data: { data: { count: 42 } } },
        ],
        extensions: ['urn:x'],
      },
      configuration: { acceptedOutputModes: ['text/plain'], historyLength: 3, blocking: true },
      metadata: { trace: 'abc' },
    });
    expect(params).toEqual({
      message: {
        kind: 'message',
        messageId: 'm-1',
        contextId: 'ctx',
        role: 'user',
        parts: [
          { kind: 'text', text: 'hi', metadata: { lang: 'en' } },
          { kind: 'file', file: { bytes: 'aGk=', mimeType: 'text/plain', name: 'hi.txt' } },
          { kind: 'file', file: { uri: 'https://example.com/x.png' } },
          { kind: 'data', data: { count: 42 } },
        ],
        extensions: ['urn:x'],
      },
      configuration: { acceptedOutputModes: ['text/plain'], historyLength: 3, blocking: true },
      metadata: { trace: 'abc' },
    });
  });

  it('takes proto field names, enum numbers, int32 strings and nulls as proto JSON allows', () => {
    const params = parseSendMessageRequest({
      request: { message_id: 'm-1', context_id: null, role: 1, content: [{ text: 'hi' }] },
      configuration: { history_length: '2', accepted_output_modes: null },
    });
    expect(params).toEqual({
      message: { kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: 'hi' }] },
      configuration: { historyLength: 2, blocking: false },
    });
  });

  it('keeps proto3 defaults: an absent blocking is false, historyLength 0 is no limit', () => {
    const params = parseSendMessageRequest({
      message: { messageId: 'm', role: 'ROLE_USER', content: [{ text: 'x' }] },
      configuration: { historyLength: 0 },
    });
    expect(params.configuration).toEqual({ blocking: false });
  });

  it.each([
    [null, /body: .*expected object/],
    [{}, /message: .*expected object/],
    [
      { message: { messageId: 7, role: 'ROLE_USER', content: [{ text: 'x' }] } },
      /message\.messageId: .*expected string/,
    ],
    [{ message: { messageId: 'm', content: [{ text: 'x' }] } }, /message\.role: must be ROLE_USER or ROLE_AGENT/],
    [{ message: { messageId: 'm', role: 'ROLE_USER', content: [] } }, /message\.content: must hold at least one part/],
    [
      { message: { messageId: 'm', role: 'ROLE_USER', content: [{ text: 'x', data: { data: {} } }] } },
      /message\.content\[0\]: a part needs exactly one of text, file or data/,
    ],
    [
      { message: { messageId: 'm', role: 'ROLE_USER', content: [{ file: { mimeType: 'text/plain' } }] } },
      /message\.content\[0\]\.file: a file needs exactly one/,
    ],
    [
      { message: { messageId: 'm', role: 'ROLE_USER', content: [{ file: { fileWithBytes: 'not base64!' } }] } },
      /message\.content\[0\]\.file\.fileWithBytes: must be base64/,
    ],
    [
      { message: { messageId: 'm', role: 'ROLE_USER', content: [{ data: { data: [1] } }] } },
      /message\.content\[0\]\.data\.data: /,
    ],
    [
      {
        message: { messageId: 'm', role: 'ROLE_USER', content: [{ text: 'x' }] },
        configuration: { historyLength: -1 },
      },
      /configuration\.historyLength: /,
    ],
    [
      { message: { messageId: 'm', role: 'ROLE_USER', content: [{ text: 'x' }] }, configuration: { blocking: 'yes' } },
      /configuration\.blocking: .*expected boolean/,
    ],
  ])('refuses %j naming what is wrong', (body, problem) => {
    expect(() => parseSendMessageRequest(body)).toThrow(
      expect.objectContaining({ name: 'RequestMalformedError', message: expect.stringMatching(problem) }),
    );
  });

  it('reads a push config as the JS client posts it (TaskPushNotificationConfig) and as the Python one does (the Create request)', () => {
    const expected = {
      taskId: 't-1',
      pushNotificationConfig: { id: 'h', url: 'https://example.com/hook', authentication: { schemes: ['Bearer'] } },
    };
    const pushNotificationConfig = {
      id: 'h',
      url: 'https://example.com/hook',
      token: '',
      authentication: { schemes: ['Bearer'] },
    };
    expect(parseTaskPushConfig({ name: 'tasks/t-1/pushNotificationConfigs/h', pushNotificationConfig }, 't-1')).toEqual(
      expected,
    );
    const python = {
      parent: 'tasks/t-1',
      configId: 'h',
      config: {
        name: 'tasks/t-1/pushNotificationConfigs/h',
        pushNotificationConfig: { ...pushNotificationConfig, id: undefined },
      },
    };
    expect(parseTaskPushConfig(python, 't-1')).toEqual(expected);
    expect(() => parseTaskPushConfig({ pushNotificationConfig: { url: 'not a url' } }, 't-1')).toThrow(
      /pushNotificationConfig\.url/,
    );
  });
});

describe('the v0.3 agent card as proto JSON', () => {
  it('writes security schemes as one-ofs and requirements as scheme lists', () => {
    const card = agentCardToProto({
      protocolVersion: '0.3.0',
      name: 'Echo',
      description: 'echoes',
      url: 'https://gateway.example/agents/echo',
      version: '1',
      capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 's', name: 'S', description: 'd', tags: [], security: [{ oauth: ['read'] }] }],
      securitySchemes: {
        key: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearer: { type: 'http', scheme: 'Bearer' },
        oauth: {
          type: 'oauth2',
          flows: { clientCredentials: { tokenUrl: 'https://auth.example/token', scopes: { read: 'read' } } },
        },
        oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://auth.example/.well-known/openid-configuration' },
        mtls: { type: 'mutualTLS' },
      },
      security: [{ bearer: [] }],
    });
    expect(wire(card)).toMatchObject({
      capabilities: { streaming: true, pushNotifications: false },
      securitySchemes: {
        key: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
        bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } },
        oauth: {
          oauth2SecurityScheme: {
            flows: { clientCredentials: { tokenUrl: 'https://auth.example/token', scopes: { read: 'read' } } },
          },
        },
        oidc: {
          openIdConnectSecurityScheme: { openIdConnectUrl: 'https://auth.example/.well-known/openid-configuration' },
        },
        mtls: { mtlsSecurityScheme: {} },
      },
      security: [{ schemes: { bearer: { list: [] } } }],
      skills: [{ id: 's', security: [{ schemes: { oauth: { list: ['read'] } } }] }],
    });
    expect(wire(card).capabilities).not.toHaveProperty('stateTransitionHistory');
  });
});
