/**
 * One task's Durable Object: it drives the task's Logos conversation and holds its streams. The front Worker sends
 * it every call that drives the task (task-routing.ts); it serves them with the gateway's own app and engine, whose
 * store is D1 and whose transport is the node's REST API. Its alarm polls the node while the task runs or a call
 * waits, and brings the task back after an eviction: the engine resumes it from D1 (resending the request if the
 * agent never answered) and its timeouts start again. A paid task is paid from here, once: this object alone drives
 * the task, its payment record in D1 says what was already signed, and the WalletObject signs (worker-app.ts).
 */
import type { DurableObjectState } from '@cloudflare/workers-types/index.ts';
import type { NwakuRestTransport } from '../logos/transports/nwaku-rest.ts';
import { D1TaskStore } from '../store/d1/task-store.ts';
import { directoryEntries } from './directory-client.ts';
import { directoryFromSnapshot } from './directory-snapshot.ts';
import { cannotStart, objectTransport } from './logos-node.ts';
import { TASK_ID_HEADER } from './task-routing.ts';
import { taskPayments, workerApp, type WorkerApp } from './worker-app.ts';
import { workerSettings, type WorkerEnv } from './worker-env.ts';

const TASK_KEY = 'task';
const ORIGIN_KEY = 'origin';

interface Running extends WorkerApp {
  transport: NwakuRestTransport;
  pollIntervalMs: number;
}

export class TaskObject {
  private readonly state: DurableObjectState;
  private readonly env: WorkerEnv;
  private running: Promise<Running> | undefined;
  /** Calls being answered: a blocking send waits on replies, so the node is polled until it returns. */
  private inFlight = 0;

  constructor(state: DurableObjectState, env: WorkerEnv) {
    this.state = state;
    this.env = env;
  }

  async fetch(request: Request): Promise<Response> {
    const taskId = request.headers.get(TASK_ID_HEADER);
    if (!taskId) return new Response('TaskObject is reached through the gateway Worker only.', { status: 400 });
    let running: Running;
    try {
      running = await this.run(taskId, new URL(request.url).origin);
    } catch (error) {
      return cannotStart(error);
    }
    this.inFlight++;
    await this.pollSoon(running);
    try {
      return await running.app.fetch(request);
    } finally {
      this.inFlight--;
    }
  }

  async alarm(): Promise<void> {
    const taskId = await this.state.storage.get<string>(TASK_KEY);
    const origin = await this.state.storage.get<string>(ORIGIN_KEY);
    if (!taskId || !origin) return;
    const running = await this.run(taskId, origin);
    try {
      await running.transport.poll();
    } finally {
      if (this.inFlight > 0 || running.engine.activeTaskCount > 0) {
        await this.state.storage.setAlarm(Date.now() + running.pollIntervalMs);
      }
    }
  }

  private async pollSoon(running: Running): Promise<void> {
    if ((await this.state.storage.getAlarm()) === null) {
      await this.state.storage.setAlarm(Date.now() + running.pollIntervalMs);
    }
  }

  private run(taskId: string, origin: string): Promise<Running> {
    this.running ??= this.open(taskId, origin).catch((error: unknown) => {
      this.running = undefined;
      throw error;
    });
    return this.running;
  }

  private async open(taskId: string, origin: string): Promise<Running> {
    const settings = workerSettings(this.env);
    await this.state.storage.put({ [TASK_KEY]: taskId, [ORIGIN_KEY]: origin });
    const transport = await objectTransport(this.state.storage, settings);
    await transport.start();
    const heard = await directoryEntries(this.env);
    if (!heard.ok) throw new Error(`the directory object: ${await heard.response.text()}`);
    const directory = directoryFromSnapshot(heard.entries, settings.config.offlineAfterMs);
    const store = new D1TaskStore(this.env.DB, { onlyTask: taskId });
    const payments = await taskPayments(this.env, settings, taskId);
    const gateway = workerApp({
      settings,
      directory,
      store,
      transport,
      origin,
      newTaskId: () => taskId,
      ...(payments ? { payments } : {}),
    });
    // Picks the task up again if it was running when this object was last evicted.
    await gateway.engine.start();
    return { ...gateway, transport, pollIntervalMs: settings.pollIntervalMs };
  }
}
