/**
 * The v0.3 HTTP+JSON binding (`{base}/v1/…`) over a real request handler and task engine, called by the real
 * v0.3 client (@a2a-js/sdk 0.3.14 over its REST transport) and by raw requests for the wire and the guards. A small
 * Hono app mounts the binding per agent, as the gateway's app does, over a request handler without push
 * notifications; the raw requests call it in-process where no socket is needed.
 */
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { AgentCard, Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from 'a2a-sdk-v03';
import { ClientFactory, RestTransportFactory, type Client, type RestTransport } from 'a2a-sdk-v03/client';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeys } from '../../src/a2a/api-keys.ts';
import { LegacyRestBinding } from '../../src/a2a/rest-v03.ts';
import { matchLegacyRestRoute } from '../../src/a2a/rest-v03-routes.ts';
import { LogosAgentRequestHandler } from '../../src/bridge/request-handler.ts';
import { projectCard } from '../../src/a2a/card-projection.ts';
import { AgentCard as V1AgentCard } from '@a2a-js/sdk';
import type { Gateway } from '../../src/gateway/gateway.ts';
import { conformanceAgent } from '../../src/logos/agents/conformance.ts';
import { echoAgent } from '../../src/logos/agents/echo.ts';
import { gatedAgent, type GatedAgent } from '../support/gated-agent.ts';
import { collect, eventually, startTestBed, type TestBed } from '../support/gateway.ts';
import { dataOf, openSse } from '../support/sse.ts';

interface BindingServer {
  url: string;
  /** The server's app, for the tests that need no socket. */
  app: Hono;
  close(): Promise<void>;
}

/** The binding for every agent of the gateway at /agents/{id}, with 404 and 405 for paths it does not serve. */
async function startBindingServer(
  gateway: Gateway,
  options: { maxBodyBytes: number; apiKeys: ApiKeys },
): Promise<BindingServer> {
  let url = '';
  const app = new Hono();
  app.all('/agents/:agentId/*', (c) => {
    const agentId = c.req.param('agentId');
    const entry = gateway.directory.get(agentId);
    if (!entry) return c.json({ error: `no agent ${agentId}` }, 404);
    const prefix = `/agents/${agentId}`;
    const match = matchLegacyRestRoute(c.req.method, c.req.path.slice(prefix.length));
    if (!match) return c.json({ error: 'no such route' }, 404);
    if ('allow' in match) return c.json({ error: 'method not allowed' }, 405, { Allow: match.allow.join(', ') });
    const card = V1AgentCard.fromJSON(projectCard(entry.card, `${url}${prefix}`));
    const handler = new LogosAgentRequestHandler({ agent: entry, card, engine: gateway.engine, store: gateway.store });
    return new LegacyRestBinding(handler, { ...options, heartbeatMs: 1_000 }).handle(c, match.route);
  });
  const server: ServerType = await new Promise((resolve) => {
    const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    app,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}

let bed: TestBed;
let slow: GatedAgent;
let open: BindingServer;
let keyed: BindingServer;

beforeAll(async () => {
  bed = await startTestBed({
    agents: (network) => {
      slow = gatedAgent(network, 'slow');
      return [echoAgent(network.node('agent:echo')), conformanceAgent(network.node('agent:conformance')), slow.agent];
    },
  });
  open = await startBindingServer(bed.gateway, { maxBodyBytes: 64 * 1024, apiKeys: new ApiKeys([]) });
  keyed = await startBindingServer(bed.gateway, {
    maxBodyBytes: 64 * 1024,
    apiKeys: new ApiKeys([{ name: 'alice', key: 'alice-key' }]),
  });
});
afterAll(async () => {
  await Promise.all([open?.close(), keyed?.close()]);
  await bed?.close();
});

const agentUrl = (agentId: string) => `${open.url}/agents/${agentId}`;

/** A v0.3 card for the agent that prefers HTTP+JSON, the way a v0.3 agent using the REST binding publishes it. */
function legacyCard(agentId: string): AgentCard {
  return {
    protocolVersion: '0.3.0',
    name: agentId,
    description: `The ${agentId} agent`,
    url: agentUrl(agentId),
    preferredTransport: 'HTTP+JSON',
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
}

function legacyClient(agentId: string): Promise<Client> {
  return new ClientFactory({ transports: [new RestTransportFactory()] }).createFromAgentCard(legacyCard(agentId));
}

let counter = 0;
const message = (text: string, extra: { messageId?: string; taskId?: string } = {}): Message => ({
  kind: 'message',
  messageId: extra.messageId ?? `v03-rest-${++counter}-${Date.now()}`,
  role: 'user',
  parts: [{ kind: 'text', text }],
  ...(extra.taskId ? { taskId: extra.taskId } : {}),
});

const textOf = (task: Task) =>
  (task.artifacts ?? [])
    .flatMap((artifact) => artifact.parts)
    .map((part) => (part.kind === 'text' ? part.text : ''))
    .join('');

describe('the v0.3 client over HTTP+JSON', () => {
  it('sendMessage blocks until the task completes and gets it back with its artifacts and history', async () => {
    const client = await legacyClient('echo');
    const result = await client.sendMessage({ message: message('hello over v0.3 REST') });
    expect(result.kind).toBe('task');
    const task = result as Task;
    expect(task.status.state).toBe('completed');
    expect(textOf(task)).toBe('hello over v0.3 REST');
    expect(task.history?.[0]?.parts[0]).toMatchObject({ kind: 'text', text: 'hello over v0.3 REST' });
  });

  it('sendMessage gets a direct message when the agent answers without a task', async () => {
    const client = await legacyClient('conformance');
    const result = await client.sendMessage({
      message: message('hi', { messageId: `tck-message-response-${Date.now()}` }),
    });
    expect(result.kind).toBe('message');
    expect((result as Message).role).toBe('agent');
    expect((result as Message).parts[0]?.kind).toBe('text');
  });

  it('sendMessageStream yields the task, working, the artifact and completed with final:true', async () => {
    const client = await legacyClient('conformance');
    const events = await collect(
      client.sendMessageStream({ message: message('hi', { messageId: `tck-stream-001-${Date.now()}` }) }),
    );
    expect(events[0]?.kind).toBe('task');
    const statuses = events.filter((event): event is TaskStatusUpdateEvent => event.kind === 'status-update');
    expect(statuses.map((event) => event.status.state)).toContain('working');
    const artifact = events.find((event): event is TaskArtifactUpdateEvent => event.kind === 'artifact-update');
    expect(artifact?.artifact.parts[0]?.kind).toBe('text');
    const last = events.at(-1) as TaskStatusUpdateEvent;
    expect(last.kind).toBe('status-update');
    expect(last.status.state).toBe('completed');
    expect(last.final).toBe(true);
  });

  it('getTask returns the task, and historyLength trims its history', async () => {
    const client = await legacyClient('echo');
    const task = (await client.sendMessage({ message: message('remember me') })) as Task;
    const full = await client.getTask({ id: task.id });
    expect(full.id).toBe(task.id);
    expect(full.status.state).toBe('completed');
    expect(full.history?.length).toBeGreaterThan(0);
    const trimmed = await client.getTask({ id: task.id, historyLength: 0 });
    expect(trimmed.history ?? []).toEqual([]);
  });

  it('cancelTask cancels a running task; cancelling it again is the v0.3 TaskNotCancelableError', async () => {
    const client = await legacyClient('slow');
    const task = (await client.sendMessage({
      message: message('cancel me'),
      configuration: { blocking: false },
    })) as Task;
    expect(['submitted', 'working']).toContain(task.status.state);
    const cancelled = await client.cancelTask({ id: task.id });
    expect(cancelled.status.state).toBe('canceled');
    await expect(client.cancelTask({ id: task.id })).rejects.toMatchObject({ name: 'TaskNotCancelableError' });
  });

  it('resubscribeTask follows a running task to its end', async () => {
    const client = await legacyClient('slow');
    const task = (await client.sendMessage({
      message: message('follow me'),
      configuration: { blocking: false },
    })) as Task;
    const stream = client.resubscribeTask({ id: task.id });
    const first = await stream.next();
    expect(first.value).toMatchObject({ kind: 'task', id: task.id });
    const rest = collect(stream);
    await eventually(() => (slow.waiting > 0 ? true : undefined));
    slow.open();
    const events = await rest;
    const artifactIds = events.flatMap((event) =>
      event.kind === 'artifact-update' ? [event.artifact.artifactId] : [],
    );
    expect(artifactIds).toEqual(expect.arrayContaining(['step-1', 'step-2', 'step-3']));
    const last = events.at(-1) as TaskStatusUpdateEvent;
    expect(last.status.state).toBe('completed');
    expect(last.final).toBe(true);
  });

  it('an unknown task is the v0.3 TaskNotFoundError', async () => {
    const client = await legacyClient('echo');
    await expect(client.getTask({ id: 'no-such-task' })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
    await expect(client.cancelTask({ id: 'no-such-task' })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
  });

  it('push notification configs answer PushNotificationNotSupportedError while the handler offers none', async () => {
    // The transport itself: the client would refuse on its own, reading the card's capabilities.
    const transport = (await new RestTransportFactory().create(agentUrl('echo'), legacyCard('echo'))) as RestTransport;
    const pushNotificationConfig = { id: 'hook-1', url: 'http://127.0.0.1:9/hook' };
    const unsupported = { name: 'PushNotificationNotSupportedError' };
    await expect(
      transport.setTaskPushNotificationConfig({ taskId: 'some-task', pushNotificationConfig }),
    ).rejects.toMatchObject(unsupported);
    await expect(
      transport.getTaskPushNotificationConfig({ id: 'some-task', pushNotificationConfigId: 'hook-1' }),
    ).rejects.toMatchObject(unsupported);
    await expect(transport.listTaskPushNotificationConfig({ id: 'some-task' })).rejects.toMatchObject(unsupported);
    await expect(
      transport.deleteTaskPushNotificationConfig({ id: 'some-task', pushNotificationConfigId: 'hook-1' }),
    ).rejects.toMatchObject(unsupported);
  });
});

/** The raw wire, in-process (the stream and the 413's Connection: close go over the socket). */
const echo = (path: string, init?: RequestInit) => open.app.request(`/agents/echo${path}`, init);
const post = (
  path: string,
  body: string,
  headers: Record<string, string> = { 'Content-Type': 'application/json' },
  server = open,
) => server.app.request(`/agents/echo${path}`, { method: 'POST', headers, body });

const sendBody = (text: string) =>
  JSON.stringify({ message: { messageId: `raw-${++counter}-${Date.now()}`, role: 'ROLE_USER', content: [{ text }] } });

describe('the v0.3 REST wire', () => {
  it('message:send answers 201 with a SendMessageResponse in v0.3 proto JSON', async () => {
    const response = await post('/v1/message:send', sendBody('on the wire'));
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const { task } = (await response.json()) as { task: any };
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.history[0]).toMatchObject({ role: 'ROLE_USER', content: [{ text: 'on the wire' }] });
    expect(task.artifacts[0].parts).toEqual([{ text: 'on the wire' }]);
    expect(task).not.toHaveProperty('kind');
  });

  it('message:stream sends bare StreamResponses as SSE data events, no JSON-RPC envelope', async () => {
    const body = JSON.stringify({
      message: { messageId: `tck-stream-001-raw-${Date.now()}`, role: 'ROLE_USER', content: [{ text: 'hi' }] },
    });
    const stream = await openSse(`${agentUrl('conformance')}/v1/message:stream`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body,
    });
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(dataOf(await stream.nextFrame())).toHaveProperty('task.status.state', 'TASK_STATE_SUBMITTED');
    const events = (await stream.rest()) as Record<string, any>[];
    expect(events.every((event) => !('jsonrpc' in event))).toBe(true);
    expect(events.some((event) => event.statusUpdate?.status.state === 'TASK_STATE_WORKING')).toBe(true);
    expect(events.some((event) => typeof event.artifactUpdate?.artifact.parts[0].text === 'string')).toBe(true);
    expect(events.at(-1)?.statusUpdate).toMatchObject({ final: true, status: { state: 'TASK_STATE_COMPLETED' } });
  });

  it('a body that is not application/json is refused with 415', async () => {
    const response = await post('/v1/message:send', sendBody('x'), { 'Content-Type': 'text/plain' });
    expect(response.status).toBe(415);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ code: -32005, message: expect.stringContaining('application/json') });
  });

  it('a wrongly typed body is a 400 naming the field, never a 500', async () => {
    const wrong = JSON.stringify({ message: { messageId: 42, role: 'ROLE_USER', content: [{ text: 'x' }] } });
    const response = await post('/v1/message:send', wrong);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { code: number; message: string };
    expect(body.code).toBe(-32602);
    expect(body.message).toContain('message.messageId');

    const badPart = JSON.stringify({
      message: { messageId: 'm', role: 'ROLE_USER', content: [{ text: 'a', data: { data: {} } }] },
    });
    const partResponse = await post('/v1/message:send', badPart);
    expect(partResponse.status).toBe(400);
    expect(((await partResponse.json()) as { message: string }).message).toContain('message.content[0]');

    for (const body of ['not json', 'null', '[]']) {
      const response = await post('/v1/message:send', body);
      expect(response.status).toBe(400);
    }
  });

  it('a bad historyLength is a 400', async () => {
    const response = await echo('/v1/tasks/some-task?historyLength=lots');
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toContain('historyLength');
  });

  it('a task that does not exist is a 404 with code -32001', async () => {
    const response = await echo('/v1/tasks/no-such-task');
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: -32001 });
  });

  it('push config routes map the handler\'s "not supported" to 400 with code -32003', async () => {
    const base = '/v1/tasks/some-task/pushNotificationConfigs';
    const responses = [
      await post(
        base,
        JSON.stringify({
          name: 'tasks/some-task/pushNotificationConfigs/h',
          pushNotificationConfig: { url: 'http://127.0.0.1:9/h' },
        }),
      ),
      await echo(base),
      await echo(`${base}/h`),
      await echo(`${base}/h`, { method: 'DELETE' }),
    ];
    for (const response of responses) {
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: -32003 });
    }
  });

  it('an A2A-Version other than 0.3 is refused with -32009', async () => {
    const response = await post('/v1/message:send', sendBody('x'), {
      'Content-Type': 'application/json',
      'A2A-Version': '1.0',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: -32009 });
  });

  it('a body over the limit is a 413 that closes the connection', async () => {
    const response = await fetch(`${agentUrl('echo')}/v1/message:send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: sendBody('x'.repeat(100 * 1024)),
    });
    expect(response.status).toBe(413);
    expect(response.headers.get('connection')).toBe('close');
    expect(await response.json()).toMatchObject({ code: -32602 });
  });

  it('with API keys configured a call without one is a 401 with WWW-Authenticate, and one with a key goes through', async () => {
    const refused = await post('/v1/message:send', sendBody('x'), { 'Content-Type': 'application/json' }, keyed);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    expect(await refused.json()).toMatchObject({ code: -32600 });
    const allowed = await post(
      '/v1/message:send',
      sendBody('x'),
      { 'Content-Type': 'application/json', Authorization: 'Bearer alice-key' },
      keyed,
    );
    expect(allowed.status).toBe(201);
  });

  it('unknown routes are 404 and known routes with the wrong method 405 with Allow', async () => {
    expect(matchLegacyRestRoute('GET', '/v1/nothing')).toBeUndefined();
    expect((await echo('/v1/nothing')).status).toBe(404);
    const wrongMethod = await echo('/v1/message:send');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    expect((await echo('/v1/tasks/x', { method: 'DELETE' })).headers.get('allow')).toBe('GET');
  });

  it('routes read ids from the path, percent-decoded', () => {
    expect(matchLegacyRestRoute('GET', '/v1/tasks/a%20b')).toEqual({ route: { name: 'getTask', taskId: 'a b' } });
    expect(matchLegacyRestRoute('GET', '/v1/tasks/t1:subscribe')).toEqual({
      route: { name: 'subscribe', taskId: 't1' },
    });
    expect(matchLegacyRestRoute('POST', '/v1/tasks/t1:subscribe')).toEqual({
      route: { name: 'subscribe', taskId: 't1' },
    });
    expect(matchLegacyRestRoute('DELETE', '/v1/tasks/t1/pushNotificationConfigs/c1')).toEqual({
      route: { name: 'deletePushConfig', taskId: 't1', configId: 'c1' },
    });
    expect(matchLegacyRestRoute('GET', '/v1/card')).toEqual({ route: { name: 'card' } });
  });
});
