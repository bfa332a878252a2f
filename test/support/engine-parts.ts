/**
 * The task engine's parts as its unit tests drive them (src/bridge/engine/): a gateway and an agent on the
 * in-process network (what the agent is sent, collected as JSON), the live tasks over an in-memory SQLite store,
 * the sender and the retransmission schedule. Each test adds the part it is about on top. `closeEngineParts`
 * (an afterEach) closes the stores.
 */
import type { LiveTask } from '../../src/bridge/live-task.ts';
import { AgentSender } from '../../src/bridge/engine/agent-sender.ts';
import { LiveTasks } from '../../src/bridge/engine/live-tasks.ts';
import { Retransmission } from '../../src/bridge/engine/retransmission.ts';
import { statusEvent } from '../../src/bridge/task-events.ts';
import { MemoryNetwork } from '../../src/logos/transports/memory.ts';
import { BINDING_VERSION, type TaskRequest } from '../../src/logos/envelope.ts';
import { newStatusKey } from '../../src/logos/status-key.ts';
import { SqliteTaskStore } from '../../src/store/sqlite/task-store.ts';

const opened: { close(): Promise<void> | void }[] = [];

/** Closes the stores the parts opened, and those registered with `closeWithEngineParts`. */
export async function closeEngineParts(): Promise<void> {
  for (const store of opened.splice(0)) await store.close();
}

export interface EnginePartsOptions {
  /** The sender's largest envelope (default 64 KiB). */
  maxEnvelopeBytes?: number;
  agentTimeoutMs?: number;
  /** What ending a task does; it is given the live tasks. Default: save it, tell its listeners, let go of it. */
  finish?: (live: LiveTask, tasks: LiveTasks) => Promise<void>;
  /** More parties on the network, started with the others. */
  others?: string[];
}

export async function engineParts(options: EnginePartsOptions = {}) {
  const store = new SqliteTaskStore(':memory:');
  opened.push(store);
  const network = new MemoryNetwork();
  const gateway = network.node('gateway');
  const agent = network.node('agent');
  const others = (options.others ?? []).map((name) => network.node(name));
  for (const node of [gateway, agent, ...others]) await node.start();
  const received: Record<string, unknown>[] = [];
  agent.onDirect((payload) => received.push(JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>));
  const tasks = new LiveTasks({ store, sharesChanges: false, leaseLost: () => undefined, log: () => undefined });
  const sender = new AgentSender(gateway, options.maxEnvelopeBytes ?? 64 * 1024);
  const finish = (live: LiveTask) => (options.finish ?? saveTellAndLetGo)(live, tasks);
  const resends = new Retransmission({
    tasks,
    sender,
    agentTimeoutMs: options.agentTimeoutMs ?? 60_000,
    finish,
    log: () => undefined,
  });
  return { store, network, gateway, agent, others, received, tasks, sender, finish, resends };
}

/** Registers a test's own store to be closed with the parts. */
export function closeWithEngineParts(store: { close(): Promise<void> | void }): void {
  opened.push(store);
}

async function saveTellAndLetGo(live: LiveTask, tasks: LiveTasks): Promise<void> {
  tasks.emit(live, await tasks.persist(live, { events: [statusEvent(live.task)] }));
  tasks.delete(live);
}

/** The gateway's request of task `task_id` to the agent, as the parts' network names them; `fields` override. */
export function taskRequest(fields: Partial<TaskRequest> & Pick<TaskRequest, 'id' | 'task_id'>): TaskRequest {
  return {
    v: BINDING_VERSION,
    type: 'task_request',
    from: 'gateway',
    to: 'agent',
    status_key: newStatusKey(),
    context_id: 'ctx',
    skill: 'echo',
    params: {},
    lez_price: '0',
    message: { role: 'ROLE_USER', messageId: 'u1', parts: [{ text: 'hi' }] },
    ...fields,
  } as TaskRequest;
}
