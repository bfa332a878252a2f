/**
 * The gRPC binding, through the official clients' gRPC transports (@a2a-js/sdk 1.3.0 and 0.3.14), each client made
 * from the card alone with no other transport to fall back on. Every method on both generations runs in
 * client-generations.test.ts; here: what the cards say, the tenant that picks the agent, the error model's status
 * codes, the edge check, API keys, rate limits, message size, internal errors and the stop.
 */
import { createServer, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import {
  AgentCard,
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskState,
  type Task,
} from '@a2a-js/sdk';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { A2AService, grpcService, UserBuilder } from '@a2a-js/sdk/server/grpc';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { ClientFactory as V03ClientFactory } from 'a2a-sdk-v03/client';
import { GrpcTransportFactory as V03GrpcTransportFactory } from 'a2a-sdk-v03/client/grpc';
import { echoAgent } from '../../src/logos/agents/echo.ts';
import { conformanceAgent, TCK_REQUIRED_EXTENSION } from '../../src/logos/agents/conformance.ts';
import { logosMetadataOf } from '../../src/bridge/task-metadata.ts';
import { INTERNAL_ERROR_MESSAGE } from '../../src/a2a/errors.ts';
import { GrpcRequestHandler } from '../../src/a2a/grpc-handler.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { metrics } from '../../src/observability/metrics.ts';
import { gatedAgent, type GatedAgent } from '../support/gated-agent.ts';
import { collect, eventually, startTestBed, textMessage, type TestBed } from '../support/gateway.ts';

/** The official v1.0 client with the gRPC transport only: a call that succeeds went over gRPC. */
const grpcOnly = new ClientFactory({ transports: [new GrpcTransportFactory()], preferredTransports: ['GRPC'] });

function grpcClient(base: string): Promise<Client> {
  // The SDK resolves the card path relative to the base, so the base must end in "/".
  return grpcOnly.createFromUrl(base.endsWith('/') ? base : `${base}/`);
}

async function cardOf(url: string, version?: string): Promise<Record<string, any>> {
  const response = await fetch(`${url}/.well-known/agent-card.json`, {
    headers: version ? { 'A2A-Version': version } : {},
  });
  return (await response.json()) as Record<string, any>;
}

describe('a gateway serving gRPC', () => {
  let bed: TestBed;
  let slow: GatedAgent;

  beforeAll(async () => {
    bed = await startTestBed({
      config: { grpcPort: 0 },
      // The first agent is the default one.
      agents: (network) => {
        slow = gatedAgent(network, 'slow');
        return [
          echoAgent(network.node('agent:echo')),
          conformanceAgent(network.node('agent:conformance')),
          conformanceAgent(network.node('agent:strict'), { id: 'strict', requireTckExtension: true }),
          slow.agent,
        ];
      },
    });
  });
  afterAll(() => bed?.close());

  it('lists gRPC in every card with the agent as its tenant; v0.3 gRPC for the default agent only', async () => {
    const address = bed.gateway.grpcAddress!;
    expect(address).toMatch(/^localhost:\d+$/);
    for (const id of ['echo', 'conformance', 'slow']) {
      const v1 = await cardOf(`${bed.gateway.url}/agents/${id}`, '1.0');
      expect(v1.supportedInterfaces).toContainEqual({
        url: address,
        protocolBinding: 'GRPC',
        tenant: id,
        protocolVersion: '1.0',
      });
      const v03 = await cardOf(`${bed.gateway.url}/agents/${id}`, '0.3');
      const legacyGrpc = v03.additionalInterfaces.filter((i: { transport: string }) => i.transport === 'GRPC');
      expect(legacyGrpc).toEqual(id === 'echo' ? [{ url: address, transport: 'GRPC' }] : []);
    }
    const root = await cardOf(bed.gateway.url);
    expect(root.supportedInterfaces).toContainEqual({ url: address, protocolBinding: 'GRPC', protocolVersion: '0.3' });
    expect(root.additionalInterfaces).toContainEqual({ url: address, transport: 'GRPC' });
  });

  it('reaches each agent by the tenant its card names, and the default agent at the root', async () => {
    for (const [base, agent] of [
      [bed.gateway.url, 'echo'],
      [`${bed.gateway.url}/agents/echo`, 'echo'],
      [`${bed.gateway.url}/agents/conformance`, 'conformance'],
    ] as const) {
      const client = await grpcClient(base);
      const task = (await client.sendMessage(textMessage(`to ${agent}`))) as Task;
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(logosMetadataOf(task)?.agentId).toBe(agent);
      // The task is the agent's: another agent's tenant does not find it.
      const other = await grpcClient(`${bed.gateway.url}/agents/${agent === 'echo' ? 'conformance' : 'echo'}`);
      await expect(other.getTask(GetTaskRequest.fromJSON({ id: task.id }))).rejects.toMatchObject({
        name: 'TaskNotFoundError',
        status: grpc.status.NOT_FOUND,
      });
    }
  });

  it('counts every call in /metrics by method and status code, streams until they end', async () => {
    const count = async (labels: { method: string; code: string }) =>
      (await metrics.grpcRequests.get()).values.find(
        (v) => v.labels.method === labels.method && v.labels.code === labels.code,
      )?.value ?? 0;
    const before = {
      sent: await count({ method: 'SendMessage', code: 'OK' }),
      missing: await count({ method: 'GetTask', code: 'NOT_FOUND' }),
      streamed: await count({ method: 'SendStreamingMessage', code: 'OK' }),
    };
    const client = await grpcClient(`${bed.gateway.url}/agents/echo`);
    await client.sendMessage(textMessage('counted'));
    await expect(client.getTask(GetTaskRequest.fromJSON({ id: 'no-such-task' }))).rejects.toThrow();
    await collect(client.sendMessageStream(textMessage('streamed')));
    await eventually(
      async () => (await count({ method: 'SendStreamingMessage', code: 'OK' })) === before.streamed + 1 || undefined,
    );
    expect(await count({ method: 'SendMessage', code: 'OK' })).toBe(before.sent + 1);
    expect(await count({ method: 'GetTask', code: 'NOT_FOUND' })).toBe(before.missing + 1);
  });

  it('answers NOT_FOUND naming the agents for a tenant that names none of them', async () => {
    const card = AgentCard.fromJSON(await cardOf(`${bed.gateway.url}/agents/echo`, '1.0'));
    for (const agentInterface of card.supportedInterfaces) agentInterface.tenant = 'nobody';
    const client = await grpcOnly.createFromAgentCard(card);
    await expect(client.sendMessage(textMessage('anyone?'))).rejects.toMatchObject({
      status: grpc.status.NOT_FOUND,
      message: expect.stringMatching(/No agent "nobody" here .*Agents: .*echo/),
    });
  });

  it('maps A2A errors to the status codes of the specification, with the SDK error types', async () => {
    const client = await grpcClient(bed.gateway.url);
    await expect(client.getTask(GetTaskRequest.fromJSON({ id: 'no-such-task' }))).rejects.toMatchObject({
      name: 'TaskNotFoundError',
      status: grpc.status.NOT_FOUND,
    });
    const done = (await client.sendMessage(textMessage('finished'))) as Task;
    await expect(client.cancelTask(CancelTaskRequest.fromJSON({ id: done.id }))).rejects.toMatchObject({
      name: 'TaskNotCancelableError',
      status: grpc.status.FAILED_PRECONDITION,
    });
    await expect(client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: done.id })).next()).rejects.toMatchObject(
      { name: 'UnsupportedOperationError', status: grpc.status.FAILED_PRECONDITION },
    );
  });

  it('checks requests at the edge as the HTTP bindings do: INVALID_ARGUMENT naming the field', async () => {
    const client = await grpcClient(`${bed.gateway.url}/agents/echo`);
    const bad: [SendMessageRequest, RegExp][] = [
      [
        SendMessageRequest.fromJSON({ message: { messageId: 'm-empty', role: 'ROLE_USER', parts: [] } }),
        // Protobuf sends no empty list: to the edge check, the parts are missing.
        /message\.parts: is required/,
      ],
      [SendMessageRequest.fromJSON({ message: { role: 'ROLE_USER', parts: [{ text: 'x' }] } }), /messageId/],
      [textMessage('x', { contextId: 'c'.repeat(300) }), /message\.contextId: at most 256 characters \(got 300\)/],
    ];
    for (const [request, message] of bad) {
      await expect(client.sendMessage(request)).rejects.toMatchObject({
        name: 'RequestMalformedError',
        status: grpc.status.INVALID_ARGUMENT,
        message: expect.stringMatching(message),
      });
      await expect(collect(client.sendMessageStream(request))).rejects.toMatchObject({
        status: grpc.status.INVALID_ARGUMENT,
      });
    }
    await expect(client.listTasks(ListTasksRequest.fromJSON({ pageSize: 500 }))).rejects.toMatchObject({
      status: grpc.status.INVALID_ARGUMENT,
      message: expect.stringMatching(/pageSize: at most 100/),
    });
  });

  it('takes a call without A2A-Version as v1.0 on the v1.0 service, and refuses another version there', async () => {
    // A plain gRPC client of the service, as grpcurl or another language's stub calls it: no tenant, no metadata.
    const Raw = grpc.makeGenericClientConstructor(A2AService, 'A2AService');
    const raw = new Raw(bed.gateway.grpcAddress!, grpc.credentials.createInsecure()) as unknown as {
      getTask(request: GetTaskRequest, metadata: grpc.Metadata, done: (error: grpc.ServiceError | null) => void): void;
      close(): void;
    };
    const getTask = (version?: string) =>
      new Promise<grpc.ServiceError | null>((resolve) => {
        const metadata = new grpc.Metadata();
        if (version) metadata.set('a2a-version', version);
        raw.getTask(GetTaskRequest.fromJSON({ id: 'no-such-task' }), metadata, resolve);
      });
    try {
      for (const version of [undefined, '1.0', '1.0.0']) {
        expect(await getTask(version)).toMatchObject({ code: grpc.status.NOT_FOUND, details: /Task no-such-task/ });
      }
      for (const version of ['0.3', '2.0']) {
        expect(await getTask(version)).toMatchObject({
          code: grpc.status.FAILED_PRECONDITION,
          details: `A2A-Version "${version}" is not served by lf.a2a.v1.A2AService, which speaks 1.0 (a2a.v1.A2AService speaks 0.3).`,
        });
      }
    } finally {
      raw.close();
    }
  });

  it('reads A2A-Extensions from the metadata: a required extension not activated is FAILED_PRECONDITION', async () => {
    const client = await grpcClient(`${bed.gateway.url}/agents/strict`);
    await expect(client.sendMessage(textMessage('no extension'))).rejects.toMatchObject({
      name: 'ExtensionSupportRequiredError',
      status: grpc.status.FAILED_PRECONDITION,
    });
    const task = (await client.sendMessage(textMessage('with it'), {
      serviceParameters: { 'A2A-Extensions': TCK_REQUIRED_EXTENSION },
    })) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('refuses a message over maxBodyBytes with RESOURCE_EXHAUSTED', async () => {
    const client = await grpcClient(bed.gateway.url);
    await expect(client.sendMessage(textMessage('x'.repeat(1024 * 1024 + 1)))).rejects.toMatchObject({
      status: grpc.status.RESOURCE_EXHAUSTED,
    });
  });

  it('streams a running task to a subscriber until cancelled, by tenant', async () => {
    const client = await grpcClient(`${bed.gateway.url}/agents/slow`);
    const task = (await client.sendMessage(
      textMessage('cancel me', { configuration: { returnImmediately: true } }),
    )) as Task;
    await eventually(() => (slow.waiting > 0 ? true : undefined));
    const stream = client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: task.id }));
    expect((await stream.next()).value?.payload?.$case).toBe('task');
    const rest = collect(stream);
    expect((await client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id }))).status?.state).toBe(
      TaskState.TASK_STATE_CANCELED,
    );
    const last = (await rest).at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('offers a v0.3 client no gRPC for an agent other than the default one', async () => {
    const factory = new V03ClientFactory({
      transports: [new V03GrpcTransportFactory()],
      preferredTransports: ['GRPC'],
    });
    await expect(factory.createFromUrl(`${bed.gateway.url}/agents/conformance/`)).rejects.toThrow(
      /No compatible transport/,
    );
    const client = await factory.createFromUrl(`${bed.gateway.url}/`);
    const reply = await client.sendMessage({
      message: {
        kind: 'message',
        messageId: `v03-${Date.now()}`,
        role: 'user',
        parts: [{ kind: 'text', text: 'old' }],
      },
    });
    expect(reply).toMatchObject({ kind: 'task', status: { state: 'completed' } });
  });
});

describe('a gateway logging its gRPC calls', () => {
  let bed: TestBed;
  const lines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    const destination = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    bed = await startTestBed({ config: { grpcPort: 0 }, logger: createLogger({ level: 'info', destination }) });
  });
  afterAll(() => bed?.close());

  it('writes one line per call, with the method, the status code and how long it took', async () => {
    const client = await grpcClient(`${bed.gateway.url}/agents/echo`);
    await client.sendMessage(textMessage('logged'));
    await expect(client.getTask(GetTaskRequest.fromJSON({ id: 'no-such-task' }))).rejects.toThrow();
    const calls = await eventually(() => {
      const found = lines.filter((line) => line.msg === 'grpc call');
      return found.length >= 2 ? found : undefined;
    });
    expect(calls.map(({ grpcMethod, code }) => ({ grpcMethod, code }))).toEqual([
      { grpcMethod: 'SendMessage', code: 'OK' },
      { grpcMethod: 'GetTask', code: 'NOT_FOUND' },
    ]);
    expect(calls.every((line) => typeof line.durationMs === 'number' && line.level === 'info')).toBe(true);
  });
});

describe('a gateway with API keys and rate limits, over gRPC', () => {
  const KEY = 'alice-key-0123456789';
  let bed: TestBed;

  beforeAll(async () => {
    bed = await startTestBed({
      config: { grpcPort: 0, apiKeys: [{ name: 'alice', key: KEY }], rateLimitPerKey: 3, rateLimitWindowMs: 60_000 },
    });
  });
  afterAll(() => bed?.close());

  it('refuses a call without a valid key with UNAUTHENTICATED, takes the key from metadata, then limits it', async () => {
    const client = await grpcClient(bed.gateway.url);
    const withoutValidKey: Record<string, string>[] = [{}, { 'x-api-key': 'not-the-key-at-all' }];
    for (const serviceParameters of withoutValidKey) {
      await expect(client.sendMessage(textMessage('no key'), { serviceParameters })).rejects.toMatchObject({
        status: grpc.status.UNAUTHENTICATED,
        message: expect.stringMatching(/API key/),
      });
    }
    await expect(collect(client.sendMessageStream(textMessage('no key')))).rejects.toMatchObject({
      status: grpc.status.UNAUTHENTICATED,
    });
    const byHeader = (await client.sendMessage(textMessage('with key'), {
      serviceParameters: { 'x-api-key': KEY },
    })) as Task;
    expect(byHeader.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // The task is the key's (the spending gate holds it to its budget).
    expect(logosMetadataOf(byHeader)?.caller).toBe('alice');
    const bearer = { serviceParameters: { authorization: `Bearer ${KEY}` } };
    expect((await client.getTask(GetTaskRequest.fromJSON({ id: byHeader.id }), bearer)).id).toBe(byHeader.id);
    await client.getTask(GetTaskRequest.fromJSON({ id: byHeader.id }), bearer);
    await expect(client.getTask(GetTaskRequest.fromJSON({ id: byHeader.id }), bearer)).rejects.toMatchObject({
      status: grpc.status.RESOURCE_EXHAUSTED,
      message: expect.stringMatching(/Too many requests for this API key; retry in \d+ s/),
    });
  });
});

describe('the gRPC service on a failing request handler', () => {
  it('answers an internal error INTERNAL without its words, and logs them', async () => {
    const logged: unknown[] = [];
    const failing = {
      getAgentCard: async () => card,
      getTask: async () => {
        throw new Error('connection to db-7.internal:5432 refused');
      },
    } as unknown as A2ARequestHandler;
    const server = new grpc.Server();
    server.addService(
      A2AService,
      grpcService({
        requestHandler: new GrpcRequestHandler(failing, (_message, error) => logged.push(error)),
        userBuilder: UserBuilder.noAuthentication,
      }),
    );
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    const card = AgentCard.fromJSON({
      name: 'failing',
      supportedInterfaces: [{ url: `127.0.0.1:${port}`, protocolBinding: 'GRPC', protocolVersion: '1.0' }],
      version: '1',
    });
    try {
      const client = await grpcOnly.createFromAgentCard(card);
      const failure = await client.getTask(GetTaskRequest.fromJSON({ id: 't1' })).catch((error: unknown) => error);
      expect(failure).toMatchObject({ status: grpc.status.INTERNAL });
      expect((failure as Error).message).toContain(INTERNAL_ERROR_MESSAGE);
      expect((failure as Error).message).not.toContain('db-7');
      expect(logged).toEqual([expect.objectContaining({ message: 'connection to db-7.internal:5432 refused' })]);
    } finally {
      server.forceShutdown();
    }
  });
});

describe('a gRPC port that is taken', () => {
  it('stops the start with an error naming the setting', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      await expect(startTestBed({ config: { grpcPort: port } })).rejects.toMatchObject({
        name: 'ConfigError',
        message: expect.stringContaining(`grpcPort (LOGOS_A2A_GRPC_PORT): cannot listen on 127.0.0.1:${port}`),
      });
    } finally {
      holder.close();
    }
  });
});

describe('stopping a gateway that serves gRPC', () => {
  it('ends open gRPC streams with the task as it stands and stops within the grace', async () => {
    let gate!: GatedAgent;
    const bed = await startTestBed({
      config: { grpcPort: 0, shutdownGraceMs: 5_000 },
      agents: (network) => {
        gate = gatedAgent(network, 'slow');
        return [gate.agent];
      },
    });
    try {
      const client = await grpcClient(bed.gateway.url);
      const stream = client.sendMessageStream(textMessage('hold on'));
      expect((await stream.next()).value?.payload?.$case).toBe('task');
      await eventually(() => (gate.waiting > 0 ? true : undefined));
      const rest = collect(stream);
      const started = Date.now();
      await bed.stopGateway();
      // Ended by the drain, not cut at the end of the grace.
      expect(Date.now() - started).toBeLessThan(4_000);
      const events = await rest;
      const last = events.at(-1)?.payload;
      expect(last?.$case === 'statusUpdate' || last?.$case === 'task').toBe(true);
    } finally {
      await bed.close();
    }
  });
});
