/**
 * Both generations of the official A2A client against the gateway, on every method they offer: @a2a-js/sdk 1.3.0
 * (A2A v1.0) and 0.3.14 (A2A v0.3) × JSON-RPC, HTTP+JSON and gRPC × the default agent at the root and an agent at
 * /agents/{id}/ (over gRPC, the agent the card's tenant names; v0.3 gRPC has no tenant and serves the default agent
 * only, so its v0.3 client runs at the root alone). gRPC-only checks are in grpc.test.ts. Every client starts the way a deployed one does, `createFromUrl(base)` with no version named, so it
 * reads the union card; the binding is forced with the factory's preferredTransports. The generation adapters in
 * ../support/sdk-generations.ts turn both SDKs' results into one shape, so each step is written once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformanceAgent, TCK_VALUES } from '../../src/logos/agents/conformance.ts';
import { echoAgent } from '../../src/logos/agents/echo.ts';
import { gatedAgent, type GatedAgent } from '../support/gated-agent.ts';
import { collect, eventually, startTestBed, type TestBed } from '../support/gateway.ts';
import {
  v03Generation,
  v1Generation,
  type Binding,
  type EventView,
  type Failure,
  type Generation,
  type Session,
} from '../support/sdk-generations.ts';

/** How long the conformance agent's `test-resubscribe-message-id` scenario works before it completes. */
const SCENARIO_RUNS_MS = 1_000;

let bed: TestBed;
let gate: GatedAgent;

beforeAll(async () => {
  bed = await startTestBed({
    config: { grpcPort: 0 },
    // The first agent is the default one, served at the root.
    agents: (network) => {
      gate = gatedAgent(network, 'slow');
      return [
        conformanceAgent(network.node('agent:conformance'), { resubscribeDelayMs: SCENARIO_RUNS_MS }),
        gate.agent,
        echoAgent(network.node('agent:echo')),
      ];
    },
  });
});
afterAll(() => bed?.close());

// ---------------------------------------------------------------------------------------------------------------
// The matrix

interface GenerationCase {
  generation: Generation;
  /** The A2A-Version header on every request (v0.3 clients send none). */
  versionHeader: string | null;
  /** Where the HTTP+JSON binding's paths start below the agent's URL. */
  restPrefix: '' | '/v1';
  /** v0.3 marks the last event of a stream `final: true`; v1.0 has no such flag. */
  marksFinal: boolean;
}

const generations: GenerationCase[] = [
  { generation: v1Generation, versionHeader: '1.0', restPrefix: '', marksFinal: false },
  { generation: v03Generation, versionHeader: null, restPrefix: '/v1', marksFinal: true },
];

/**
 * A task that keeps running until the test lets it finish. At /agents/{id}/ it is the gated agent, which waits at a
 * gate the test opens and then reports three artifacts. The root serves one agent, the conformance agent, whose
 * `test-resubscribe-message-id` scenario works for SCENARIO_RUNS_MS and then completes by itself.
 */
interface RunningTaskAgent {
  /** The base URL the client starts from. */
  base(): string;
  messageId(): string;
  /** Resolves once the task is running at the agent. */
  running(session: Session, taskId: string): Promise<void>;
  /** Lets the task go on to its end. */
  release(): void;
  /** The artifacts its events carry after release. */
  artifactIds: string[];
}

interface BaseCase {
  name: string;
  /** The base URL the client starts from (as given to createFromUrl). */
  base(): string;
  /** The agent's URL as its card states it, without a trailing slash. */
  agentUrl(): string;
  runningTask: RunningTaskAgent;
}

let scenarioCounter = 0;

const bases: BaseCase[] = [
  {
    name: 'root',
    base: () => bed.gateway.url,
    agentUrl: () => bed.gateway.url,
    runningTask: {
      base: () => bed.gateway.url,
      messageId: () => `test-resubscribe-message-id-${++scenarioCounter}-${Date.now()}`,
      running: async (session, taskId) => {
        await eventually(async () => ((await session.getTask(taskId)).state === 'working' ? true : undefined));
      },
      release: () => undefined,
      artifactIds: [],
    },
  },
  {
    name: '/agents/{id}/',
    base: () => `${bed.gateway.url}/agents/conformance/`,
    agentUrl: () => `${bed.gateway.url}/agents/conformance`,
    runningTask: {
      base: () => `${bed.gateway.url}/agents/slow/`,
      messageId: () => `gated-${++scenarioCounter}-${Date.now()}`,
      running: async () => {
        await eventually(() => (gate.waiting > 0 ? true : undefined));
      },
      release: () => gate.open(),
      artifactIds: ['step-1', 'step-2', 'step-3'],
    },
  },
];

const bindings: Binding[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];

const matrix = generations.flatMap((generation) =>
  bindings.flatMap((binding) =>
    bases
      .filter((base) => !(binding === 'GRPC' && generation.generation === v03Generation && base.name !== 'root'))
      .map((base) => ({
        ...generation,
        binding,
        base,
        name: `${generation.generation.name} over ${binding} at ${base.name}`,
      })),
  ),
);

// ---------------------------------------------------------------------------------------------------------------
// Helpers

/** The failure a call ends with, in the session's normalised terms; a call that succeeds fails the test. */
async function failureOf(session: Session, call: Promise<unknown>): Promise<Failure> {
  const outcome = await call.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (outcome.ok) throw new Error(`expected the call to fail, it returned ${JSON.stringify(outcome.value)}`);
  return session.failure(outcome.error);
}

/** A stream's events: the task first, then status and artifact updates of that task only, a terminal status last. */
function expectTaskStream(events: EventView[], finalState: string, marksFinal: boolean): string {
  const first = events[0];
  expect(first?.kind).toBe('task');
  const taskId = first?.kind === 'task' ? first.task.id : '';
  const updates = events.slice(1);
  expect(updates.length).toBeGreaterThan(0);
  for (const event of updates) {
    expect(['status', 'artifact']).toContain(event.kind);
    expect(event.kind !== 'task' && event.kind !== 'message' && event.taskId).toBe(taskId);
  }
  const last = events.at(-1);
  expect(last?.kind === 'status' && last.state).toBe(finalState);
  if (marksFinal) {
    const finals = events.map((event) => event.kind === 'status' && event.final === true);
    expect(finals).toEqual(events.map((_, index) => index === events.length - 1));
  }
  return taskId;
}

const pathOf = (url: string) => new URL(url).pathname.replace(/\/$/, '');

// ---------------------------------------------------------------------------------------------------------------
// The tests

describe.each(matrix)('$name', ({ generation, binding, base, versionHeader, restPrefix, marksFinal }) => {
  const connect = () => generation.connect(base.base(), binding);

  it('starts from the union card, talks to the forced binding at its endpoint, and reads the card', async () => {
    const session = await connect();
    expect(session.requests[0]).toMatchObject({
      method: 'GET',
      path: `${pathOf(base.agentUrl())}/.well-known/agent-card.json`,
    });
    const card = await session.card();
    expect(card).toEqual({
      name: 'A2A conformance agent',
      streaming: true,
      pushNotifications: true,
      endpoint: binding === 'GRPC' ? bed.gateway.grpcAddress : base.agentUrl(),
    });

    const reply = await session.send('where do you go?');
    expect(reply.kind).toBe('task');
    if (binding === 'GRPC') {
      // The call went over gRPC: the client made no HTTP request but for the card.
      expect(session.requests.every((request) => request.method === 'GET')).toBe(true);
      return;
    }
    const expectedPath =
      binding === 'JSONRPC' ? pathOf(base.agentUrl()) || '/' : `${pathOf(base.agentUrl())}${restPrefix}/message:send`;
    expect(session.requests.at(-1)).toEqual({ method: 'POST', path: expectedPath, version: versionHeader });
  });

  it('send (blocking) returns the completed task with the echoed text', async () => {
    const session = await connect();
    const reply = await session.send('hello both generations');
    expect(reply.kind).toBe('task');
    if (reply.kind !== 'task') return;
    expect(reply.task.state).toBe('completed');
    expect(reply.task.id).not.toBe('');
    expect(reply.task.artifacts.map((artifact) => artifact.text)).toEqual(['hello both generations']);
    expect(reply.task.history[0]).toBe('hello both generations');
  });

  it('send returns a direct Message when the agent answers without a task', async () => {
    const session = await connect();
    const reply = await session.send('hi', { messageId: `tck-message-response-${Date.now()}` });
    expect(reply).toEqual({ kind: 'message', role: 'agent', text: TCK_VALUES.directMessage });
  });

  it('send streaming yields the task, then working, the artifact and completed last', async () => {
    const session = await connect();
    const events = await collect(session.stream('hi', { messageId: `tck-stream-001-${Date.now()}` }));
    const taskId = expectTaskStream(events, 'completed', marksFinal);
    expect(events.some((event) => event.kind === 'status' && event.state === 'working')).toBe(true);
    const artifacts = events.flatMap((event) => (event.kind === 'artifact' ? [event.text] : []));
    expect(artifacts).toEqual([TCK_VALUES.stream001]);
    expect((await session.getTask(taskId)).state).toBe('completed');
  });

  it('get task returns the task, and historyLength trims its history', async () => {
    const session = await connect();
    const reply = await session.send('remember me');
    if (reply.kind !== 'task') throw new Error('expected a task');
    const full = await session.getTask(reply.task.id);
    expect(full).toMatchObject({ id: reply.task.id, contextId: reply.task.contextId, state: 'completed' });
    expect(full.artifacts.map((artifact) => artifact.text)).toEqual(['remember me']);
    expect(full.history[0]).toBe('remember me');
    expect((await session.getTask(reply.task.id, 1)).history).toHaveLength(1);
    // v0.3's protobuf sends a history_length of 0 exactly as none: over v0.3 gRPC, 0 gets the whole history.
    const zeroMeansAll = generation === v03Generation && binding === 'GRPC';
    expect((await session.getTask(reply.task.id, 0)).history).toEqual(zeroMeansAll ? ['remember me'] : []);
  });

  it.runIf(generation === v1Generation)('list tasks finds the tasks of a context', async () => {
    const session = await connect();
    const contextId = `ctx-${binding}-${base.name}-${Date.now()}`;
    const ids: string[] = [];
    for (const text of ['one', 'two']) {
      const reply = await session.send(text, { contextId });
      if (reply.kind === 'task') ids.push(reply.task.id);
    }
    const listed = await session.listTasks!(contextId);
    expect(listed.map((task) => task.id).sort()).toEqual([...ids].sort());
    expect(listed.every((task) => task.contextId === contextId && task.state === 'completed')).toBe(true);
  });

  it('cancel stops a running task; a finished task is not cancelable', async () => {
    const running = base.runningTask;
    const session = await generation.connect(running.base(), binding);
    const reply = await session.send('cancel me', { messageId: running.messageId(), returnImmediately: true });
    if (reply.kind !== 'task') throw new Error('expected a task');
    expect(['submitted', 'working']).toContain(reply.task.state);
    await running.running(session, reply.task.id);
    const canceled = await session.cancel(reply.task.id);
    expect(canceled).toMatchObject({ id: reply.task.id, state: 'canceled' });
    running.release(); // the gated agent's aborted waiter is dropped, so the next test starts with an empty gate
    expect((await session.getTask(reply.task.id)).state).toBe('canceled');
    expect(await failureOf(session, session.cancel(reply.task.id))).toBe('not-cancelable');

    const finished = await (await connect()).send('already done');
    if (finished.kind !== 'task') throw new Error('expected a task');
    const other = await connect();
    expect(await failureOf(other, other.cancel(finished.task.id))).toBe('not-cancelable');
    expect((await other.getTask(finished.task.id)).state).toBe('completed');
  });

  it('subscribe to a running task gets the task first, then its events until it completes', async () => {
    const running = base.runningTask;
    const session = await generation.connect(running.base(), binding);
    const reply = await session.send('follow me', { messageId: running.messageId(), returnImmediately: true });
    if (reply.kind !== 'task') throw new Error('expected a task');
    await running.running(session, reply.task.id);
    const stream = session.subscribe(reply.task.id);
    const first = await stream.next();
    expect(first.value).toMatchObject({ kind: 'task', task: { id: reply.task.id } });
    expect(first.value?.kind === 'task' && ['submitted', 'working'].includes(first.value.task.state)).toBe(true);
    const rest = collect(stream);
    running.release();
    const events = [first.value as EventView, ...(await rest)];
    expectTaskStream(events, 'completed', marksFinal);
    expect(events.flatMap((event) => (event.kind === 'artifact' ? [event.artifactId] : []))).toEqual(
      expect.arrayContaining(running.artifactIds),
    );
    expect((await session.getTask(reply.task.id)).state).toBe('completed');
  });

  it('a follow-up message to a task in input-required completes it', async () => {
    const session = await connect();
    const asked = await session.send('start', { messageId: `tck-input-required-${Date.now()}` });
    if (asked.kind !== 'task') throw new Error('expected a task');
    expect(asked.task.state).toBe('input-required');
    expect(asked.task.statusText).toBe('Please provide more input.');
    const done = await session.send('here you go', { taskId: asked.task.id, contextId: asked.task.contextId });
    expect(done.kind === 'task' && done.task).toMatchObject({ id: asked.task.id, state: 'completed' });
    const fetched = await session.getTask(asked.task.id);
    expect(fetched.state).toBe('completed');
    expect(fetched.history).toEqual(expect.arrayContaining(['start', 'here you go']));
    expect([fetched.statusText, ...fetched.artifacts.map((artifact) => artifact.text)]).toContain(
      'Received: here you go',
    );
  });

  it('push-notification configs: create, get, list and delete on a finished task; http and private receivers refused', async () => {
    const session = await connect();
    const reply = await session.send('push me');
    if (reply.kind !== 'task') throw new Error('expected a task');
    const taskId = reply.task.id;
    // The task is finished: it sends no more events, so nothing is ever delivered to this address.
    const url = 'https://hooks.example.com/a2a';
    expect(await session.createPushConfig(taskId, 'hook-1', url, 'tok-1')).toEqual({
      taskId,
      id: 'hook-1',
      url,
      token: 'tok-1',
    });
    expect(await session.getPushConfig(taskId, 'hook-1')).toEqual({ taskId, id: 'hook-1', url, token: 'tok-1' });
    expect((await session.listPushConfigs(taskId)).map((config) => config.id)).toEqual(['hook-1']);
    await session.deletePushConfig(taskId, 'hook-1');
    expect(await session.listPushConfigs(taskId)).toEqual([]);
    // Deleting it again succeeds (idempotent delete); a task that does not exist is still an error.
    await session.deletePushConfig(taskId, 'hook-1');
    expect(await failureOf(session, session.deletePushConfig('no-such-task', 'hook-1'))).toBe('task-not-found');
    expect(await failureOf(session, session.getPushConfig(taskId, 'hook-1'))).toBe('task-not-found');
    for (const refused of ['http://hooks.example.com/a2a', 'https://127.0.0.1/hook']) {
      expect(await failureOf(session, session.createPushConfig(taskId, 'hook-2', refused, 'tok-2'))).toBe(
        'invalid-params',
      );
    }
    expect(await session.listPushConfigs(taskId)).toEqual([]);
  });

  it('a push config set without an id: v0.3 gives it the task id, which a get without a config id finds; v1.0 a UUID', async () => {
    // Both official v0.3 SDKs do so (issue #24: before, a random UUID, and the v0.3 client's get({id}) failed).
    const session = await connect();
    const reply = await session.send('push me, no id');
    if (reply.kind !== 'task') throw new Error('expected a task');
    const taskId = reply.task.id;
    const url = 'https://hooks.example.com/a2a';
    const created = await session.createPushConfig(taskId, undefined, url, 'tok-0');
    if (generation === v03Generation) {
      expect(created).toEqual({ taskId, id: taskId, url, token: 'tok-0' });
      // JSON-RPC alone can leave the config id out: the v0.3 REST client asks for one (its path has one), and the
      // gRPC one names the config "undefined".
      const got = binding === 'JSONRPC' ? session.getPushConfig(taskId) : session.getPushConfig(taskId, taskId);
      expect(await got).toEqual(created);
    } else {
      // v1.0 makes a get name its config, and the SDK's server gives a config set without an id a fresh UUID.
      expect(created.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      // (Over HTTP+JSON the empty id is the list's path.)
      if (binding !== 'HTTP+JSON')
        expect(await failureOf(session, session.getPushConfig(taskId))).toBe('task-not-found');
      expect(await session.getPushConfig(taskId, created.id)).toEqual(created);
    }
    await session.deletePushConfig(taskId, created.id);
  });

  it('an unknown task is the task-not-found error', async () => {
    const session = await connect();
    expect(await failureOf(session, session.getTask('no-such-task'))).toBe('task-not-found');
    expect(await failureOf(session, session.cancel('no-such-task'))).toBe('task-not-found');
  });
});
