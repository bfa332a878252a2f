/**
 * Push notifications through the whole gateway: a webhook registered with a send receives every task event (v1.0
 * StreamResponse bodies, or v0.3 bodies when registered over v0.3) with its token and credentials and a stable event
 * id; deliveries a receiver refused are retried, across a gateway restart; and a webhook on a private address is
 * refused at connect time unless the operator allows private receivers.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { echoAgent } from '../../src/logos/agents/echo.ts';
import { eventually, startTestBed, type TestBed } from '../support/gateway.ts';
import { gatedAgent, type GatedAgent } from '../support/gated-agent.ts';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

/** A webhook receiver on 127.0.0.1 that answers `status()` (200 unless a test says otherwise). */
async function startReceiver(): Promise<{
  server: Server;
  url: string;
  received: Received[];
  status: { code: number };
}> {
  const received: Received[] = [];
  const status = { code: 200 };
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      if (status.code === 200) received.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(text) });
      res.writeHead(status.code).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, status };
}

const rpc = (bed: TestBed, method: string, params: unknown, version?: string, agent = 'echo') =>
  fetch(`${bed.gateway.url}/agents/${agent}/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(version ? { 'A2A-Version': version } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  }).then((response) => response.json());

describe('push notifications (private receivers allowed)', () => {
  let bed: TestBed;
  let gated: GatedAgent;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver();
    bed = await startTestBed({
      config: { pushAllowPrivate: true },
      agents: (network) => {
        gated = gatedAgent(network);
        return [echoAgent(network.node('agent:echo')), gated.agent];
      },
    });
  });
  afterAll(async () => {
    await bed.close();
    receiver.server.close();
  });
  afterEach(() => {
    receiver.received.length = 0;
    receiver.status.code = 200;
  });

  it('a v1.0 send with a webhook: every event arrives as a StreamResponse with token, credentials and event id', async () => {
    const sent = await rpc(
      bed,
      'SendMessage',
      {
        message: { messageId: 'push-v1', role: 'ROLE_USER', parts: [{ text: 'ping' }] },
        configuration: {
          taskPushNotificationConfig: {
            url: `${receiver.url}/v1`,
            token: 'tok-v1',
            authentication: { scheme: 'Bearer', credentials: 'cred-v1' },
          },
        },
      },
      '1.0',
    );
    const taskId = sent.result.task.id;
    await eventually(
      () =>
        receiver.received.some(
          (r) =>
            r.body.statusUpdate?.status?.state === 'TASK_STATE_COMPLETED' ||
            r.body.task?.status?.state === 'TASK_STATE_COMPLETED',
        ) || undefined,
    );
    const first = receiver.received[0]!;
    expect(first.body.task).toMatchObject({ id: taskId, status: { state: 'TASK_STATE_SUBMITTED' } });
    for (const { headers, body } of receiver.received) {
      expect(headers['content-type']).toMatch(/^application\/a2a\+json/);
      expect(headers['x-a2a-notification-token']).toBe('tok-v1');
      expect(headers.authorization).toBe('Bearer cred-v1');
      expect(body.task?.id ?? body.statusUpdate?.taskId ?? body.artifactUpdate?.taskId).toBe(taskId);
    }
    const ids = receiver.received.map((r) => r.headers['a2a-notification-id']);
    expect(new Set(ids).size).toBe(ids.length);
    expect(receiver.received.some((r) => r.body.artifactUpdate)).toBe(true);
  });

  it('a webhook registered over v0.3 receives v0.3 bodies', async () => {
    const sent = await rpc(bed, 'message/send', {
      message: { kind: 'message', messageId: 'push-v03', role: 'user', parts: [{ kind: 'text', text: 'ping' }] },
      configuration: { blocking: true, pushNotificationConfig: { url: `${receiver.url}/v03`, token: 'tok-v03' } },
    });
    expect(sent.result.kind).toBe('task');
    await eventually(() => receiver.received.some((r) => r.body.status?.state === 'completed') || undefined);
    for (const { headers, body } of receiver.received) {
      expect(headers['x-a2a-notification-token']).toBe('tok-v03');
      expect(body.kind).toBe('task');
      expect(body.id).toBe(sent.result.id);
    }
  });

  it('deliveries the receiver refused are retried, and survive a gateway restart', async () => {
    receiver.status.code = 503;
    const sent = await rpc(
      bed,
      'SendMessage',
      {
        message: {
          messageId: 'push-restart',
          role: 'ROLE_USER',
          parts: [{ text: 'wait' }],
          metadata: { skill: 'steps' },
        },
        configuration: { returnImmediately: true, taskPushNotificationConfig: { url: `${receiver.url}/restart` } },
      },
      '1.0',
      'gated',
    );
    expect(sent.result.task.id).toBeDefined();
    await bed.stopGateway();
    receiver.status.code = 200;
    await bed.restartGateway();
    // Found by its path: a delivery of an earlier test's task may still arrive (retried) after the receiver was reset.
    const delivered = await eventually(
      () =>
        receiver.received.find((r) => r.path === '/restart' && r.body.task?.status?.state === 'TASK_STATE_SUBMITTED'),
      15_000,
    );
    expect(delivered.body.task.id).toBe(sent.result.task.id);
    gated.open();
  });
});

describe('push notifications (default: public https receivers only)', () => {
  let bed: TestBed;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver();
    bed = await startTestBed();
  });
  afterAll(async () => {
    await bed.close();
    receiver.server.close();
  });

  it('refuses a plain-http or private webhook up front, and a name resolving to loopback at connect time', async () => {
    const refused = await rpc(
      bed,
      'SendMessage',
      {
        message: { messageId: 'push-ssrf-1', role: 'ROLE_USER', parts: [{ text: 'x' }] },
        configuration: { taskPushNotificationConfig: { url: receiver.url } },
      },
      '1.0',
    );
    expect(refused.error.code).toBe(-32602);
    expect(refused.error.message).toMatch(/https/);
    // `localhost` passes the static check (a name), but it resolves to loopback: the connection is refused before
    // it is made, and the delivery fails without a retry.
    const port = new URL(receiver.url).port;
    const failedBefore = bed.gateway.push.counters.failed;
    const sent = await rpc(
      bed,
      'SendMessage',
      {
        message: { messageId: 'push-ssrf-2', role: 'ROLE_USER', parts: [{ text: 'x' }] },
        configuration: { taskPushNotificationConfig: { url: `https://localhost:${port}/hook` } },
      },
      '1.0',
    );
    expect(sent.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    await eventually(() => bed.gateway.push.counters.failed > failedBefore || undefined);
    expect(receiver.received).toEqual([]);
  });
});
