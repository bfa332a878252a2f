/**
 * A real A2A agent over HTTP, as its own process: @a2a-js/sdk 1.3.0's server stack (DefaultRequestHandler,
 * InMemoryTaskStore, its Express JSON-RPC and HTTP+JSON handlers), with a card signed by a key of its own (ES256,
 * the key set at /.well-known/jwks.json, named by the signature's jku).
 *
 *   node test/support/http-agent-process.ts [--v03 | --grpc] [--tamper] [--bearer TOKEN] [--port PORT]
 *
 * What it does with the text it is sent:
 * - `ask`: input-required ("What is your name?"); the follow-up NAME completes it with "hello, NAME";
 * - `slow`: working until cancelled;
 * - `fail`: failed, saying "it broke";
 * - `wait`: working for 4 s, then completed with "waited";
 * - anything else: streams "echo: " then the text as two chunks of one artifact, then completes.
 *
 * `--grpc` serves the gRPC binding too (the SDK's gRPC service, on a port of its own), listed first in its card.
 * `--v03` makes it an A2A v0.3 agent: a card of the v0.3 shape, and JSON-RPC in v0.3 only (the SDK's compat layer).
 * `--tamper` serves the card with its description changed after signing; `--bearer` refuses every request
 * (the card included) without `Authorization: Bearer TOKEN`. Prints `listening URL` once up, and `cancelled TASK_ID`
 * for each task cancelled.
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import express from 'express';
import { AgentCard, TaskState, type Message, type Task } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { A2AService, grpcService, UserBuilder as GrpcUserBuilder } from '@a2a-js/sdk/server/grpc';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { p256 } from '@noble/curves/nist.js';
import { cardSigningPublicKey, gatewayJwks, JWKS_PATH, signProjectedCard } from '../../src/a2a/card-jws.ts';

const { values } = parseArgs({
  options: {
    tamper: { type: 'boolean' },
    bearer: { type: 'string' },
    port: { type: 'string' },
    v03: { type: 'boolean' },
    grpc: { type: 'boolean' },
  },
});

const now = () => new Date().toISOString();
const textOf = (message: Message | undefined) =>
  (message?.parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
const agentText = (text: string, taskId: string, contextId: string): Message => ({
  messageId: `m-${Math.random().toString(36).slice(2)}`,
  contextId,
  taskId,
  role: 2, // ROLE_AGENT
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

/** Tasks of `slow` waiting to be cancelled, and their contexts. */
const waiting = new Map<string, { contextId: string; stop: () => void }>();

const executor: AgentExecutor = {
  async execute(context, bus) {
    const { taskId, contextId, userMessage } = context;
    const text = textOf(userMessage);
    // Printed, so that a test can tell which messages reached the agent.
    console.log(`heard ${JSON.stringify(text)}`);
    const task: Task = context.task ?? {
      id: taskId,
      contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
      artifacts: [],
      history: [userMessage],
      metadata: undefined,
    };
    bus.publish(AgentEvent.task(task));
    const status = (state: TaskState, said?: string) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state, message: said ? agentText(said, taskId, contextId) : undefined, timestamp: now() },
          metadata: undefined,
        }),
      );
    const chunk = (value: string, append: boolean, lastChunk: boolean) =>
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: 'reply',
            name: 'reply',
            description: '',
            parts: [{ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
            metadata: undefined,
            extensions: [],
          },
          append,
          lastChunk,
          metadata: undefined,
        }),
      );
    if (context.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      status(TaskState.TASK_STATE_WORKING);
      chunk(`hello, ${text}`, false, true);
      status(TaskState.TASK_STATE_COMPLETED);
      return;
    }
    if (text === 'ask') return status(TaskState.TASK_STATE_INPUT_REQUIRED, 'What is your name?');
    if (text === 'fail') return status(TaskState.TASK_STATE_FAILED, 'it broke');
    if (text === 'wait') {
      status(TaskState.TASK_STATE_WORKING, 'waiting');
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      chunk('waited', false, true);
      return status(TaskState.TASK_STATE_COMPLETED);
    }
    if (text === 'slow') {
      status(TaskState.TASK_STATE_WORKING, 'working slowly');
      await new Promise<void>((stop) => waiting.set(taskId, { contextId, stop }));
      return;
    }
    status(TaskState.TASK_STATE_WORKING, 'echoing');
    chunk('echo: ', false, false);
    chunk(text, true, true);
    status(TaskState.TASK_STATE_COMPLETED);
  },
  async cancelTask(taskId, bus) {
    const slow = waiting.get(taskId);
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: slow?.contextId ?? '',
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: now() },
        metadata: undefined,
      }),
    );
    slow?.stop();
    waiting.delete(taskId);
    console.log(`cancelled ${taskId}`);
  },
};

const app = express();
/** The card and its key set, and the auth check, in front of the SDK's handlers. */
let own: Record<string, unknown> = {};
const server = createServer((request, response) => {
  if (values.bearer && request.headers.authorization !== `Bearer ${values.bearer}`) {
    response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthenticated"}');
    return;
  }
  const document = own[request.url ?? ''];
  if (request.method === 'GET' && document) {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
    return;
  }
  app(request, response);
});
await new Promise<void>((resolve) => server.listen(Number(values.port ?? 0), '127.0.0.1', resolve));
const address = server.address();
const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

const grpcServer = values.grpc ? new Server() : undefined;
const grpcPort = grpcServer
  ? await new Promise<number>((resolve, reject) =>
      grpcServer.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    )
  : undefined;

const secretKey = p256.utils.randomSecretKey();
const key = { alg: 'ES256' as const, secretKey, jku: `${url}${JWKS_PATH}` };
const cardJson = {
  name: 'Weather Desk',
  description: 'Answers over HTTP: echoes, asks for a name, works slowly, or fails, as told.',
  supportedInterfaces: [
    ...(grpcPort ? [{ url: `127.0.0.1:${grpcPort}`, protocolBinding: 'GRPC', protocolVersion: '1.0' }] : []),
    { url: `${url}/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ],
  version: '2.1.0',
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [
    { id: 'echo', name: 'Echo', description: 'Echoes the text.', tags: ['echo'], examples: ['hello'] },
    { id: 'greet', name: 'Greet', description: 'Asks for a name, then greets.', tags: ['greet'] },
  ],
};
/** The same agent as a v0.3 card describes it: one URL, its preferred transport, a card-level protocol version. */
const legacyCardJson = {
  protocolVersion: '0.3.0',
  name: cardJson.name,
  description: cardJson.description,
  url: `${url}/`,
  preferredTransport: 'JSONRPC',
  version: cardJson.version,
  capabilities: { streaming: true },
  defaultInputModes: cardJson.defaultInputModes,
  defaultOutputModes: cardJson.defaultOutputModes,
  skills: cardJson.skills,
};
const signed = values.v03 ? signProjectedCard(legacyCardJson, key) : signProjectedCard(cardJson, key);
const served = values.tamper ? { ...signed, description: 'Tampered after signing.' } : signed;

own = {
  '/.well-known/agent-card.json': served,
  [JWKS_PATH]: gatewayJwks(cardSigningPublicKey(key), undefined, 'ES256'),
};
const handlerCard = values.v03
  ? { ...cardJson, supportedInterfaces: [{ url: `${url}/`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' }] }
  : cardJson;
const requestHandler = new DefaultRequestHandler(AgentCard.fromJSON(handlerCard), new InMemoryTaskStore(), executor);
const legacyCompat = { enabled: values.v03 === true };
app.use(jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
if (!values.v03) app.use(restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
grpcServer?.addService(A2AService, grpcService({ requestHandler, userBuilder: GrpcUserBuilder.noAuthentication }));

console.log(`listening ${url}`);
process.once('SIGTERM', () => {
  grpcServer?.forceShutdown();
  server.close(() => process.exit(0));
});
