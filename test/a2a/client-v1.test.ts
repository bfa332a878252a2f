/** Every A2A v1.0 method through the official client, over both bindings, through the whole Logos path. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  SubscribeToTaskRequest,
  TaskState,
  type Task,
} from '@a2a-js/sdk';
import { echoAgent } from '../../src/logos/agents/echo.ts';
import {
  clientFor,
  collect,
  eventually,
  startTestBed,
  textMessage,
  type Binding,
  type TestBed,
} from '../support/gateway.ts';
import { gatedAgent, type GatedAgent } from '../support/gated-agent.ts';

let bed: TestBed;
let slow: GatedAgent;

beforeAll(async () => {
  bed = await startTestBed({
    agents: (network) => {
      slow = gatedAgent(network, 'slow');
      return [echoAgent(network.node('agent:echo')), slow.agent];
    },
  });
});
afterAll(() => bed.close());

it('runs on the wire its vitest project names (the waku project: every envelope over Waku relay)', ({ task }) => {
  expect(bed.gateway.network.description).toMatch(task.file.projectName === 'waku' ? /^Waku relay/ : /^in-process/);
});

const textOf = (task: Task) =>
  task.artifacts
    .flatMap((a) => a.parts)
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .join('');

describe.each<Binding>(['JSONRPC', 'HTTP+JSON'])('official v1.0 client over %s', (binding) => {
  it('SendMessage blocks until the echo agent completes and returns its text as an artifact', async () => {
    const client = await clientFor(bed.gateway.url, binding);
    const result = (await client.sendMessage(textMessage('hello logos'))) as Task;
    expect(result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(result)).toBe('hello logos');
    expect(result.history[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'hello logos' });
  });

  it('returnImmediately answers with the submitted task, which then completes', async () => {
    const client = await clientFor(`${bed.gateway.url}/agents/slow`, binding);
    const task = (await client.sendMessage(textMessage('x', { configuration: { returnImmediately: true } }))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    await eventually(() => (slow.waiting > 0 ? true : undefined));
    slow.open();
    const done = await eventually(async () => {
      const now = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }));
      return now.status?.state === TaskState.TASK_STATE_COMPLETED ? now : undefined;
    });
    expect(textOf({ ...done, artifacts: done.artifacts.filter((a) => a.artifactId === 'result') })).toBe('done: x');
  });

  it('SendStreamingMessage yields the task, then updates, and closes at completion', async () => {
    const client = await clientFor(bed.gateway.url, binding);
    const events = await collect(client.sendMessageStream(textMessage('streamed')));
    expect(events[0]?.payload?.$case).toBe('task');
    const last = events.at(-1)?.payload;
    expect(last?.$case).toBe('statusUpdate');
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(events.some((e) => e.payload?.$case === 'artifactUpdate')).toBe(true);
  });

  it('GetTask applies historyLength', async () => {
    const client = await clientFor(bed.gateway.url, binding);
    const task = (await client.sendMessage(textMessage('history'))) as Task;
    const full = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }));
    expect(full.history.length).toBeGreaterThan(0);
    const none = await client.getTask(GetTaskRequest.fromJSON({ id: task.id, historyLength: 0 }));
    expect(none.history).toEqual([]);
  });

  it('ListTasks filters by context, pages with a token and omits artifacts unless asked', async () => {
    const client = await clientFor(bed.gateway.url, binding);
    const contextId = `ctx-${binding}-${Date.now()}`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(((await client.sendMessage(textMessage(`n${i}`, { contextId }))) as Task).id);
    const first = await client.listTasks(ListTasksRequest.fromJSON({ contextId, pageSize: 2 }));
    expect(first.totalSize).toBe(3);
    expect(first.tasks).toHaveLength(2);
    expect(first.nextPageToken).not.toBe('');
    expect(first.tasks.every((t) => t.artifacts.length === 0)).toBe(true);
    const second = await client.listTasks(
      ListTasksRequest.fromJSON({ contextId, pageSize: 2, pageToken: first.nextPageToken, includeArtifacts: true }),
    );
    expect(second.tasks).toHaveLength(1);
    expect(second.nextPageToken).toBe('');
    expect(second.tasks[0]!.artifacts.length).toBe(1);
    // Newest first, every task exactly once.
    expect([...first.tasks, ...second.tasks].map((t) => t.id).sort()).toEqual([...ids].sort());
    const timestamps = [...first.tasks, ...second.tasks].map((t) => t.status!.timestamp!);
    expect([...timestamps].sort().reverse()).toEqual(timestamps);
  });

  it('CancelTask cancels a working task on the agent, and SubscribeToTask follows it to the end', async () => {
    const client = await clientFor(`${bed.gateway.url}/agents/slow`, binding);
    const task = (await client.sendMessage(
      textMessage('cancel me', { configuration: { returnImmediately: true } }),
    )) as Task;
    const stream = client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: task.id }));
    const first = await stream.next();
    expect(first.value?.payload?.$case).toBe('task');
    const rest = collect(stream);
    const cancelled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id }));
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const events = await rest;
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id }))).rejects.toThrow(/cannot be cancelled/);
  });

  it('unknown tasks give TaskNotFound; push configs are created, read, listed and deleted, unsafe webhooks refused', async () => {
    const client = await clientFor(bed.gateway.url, binding);
    await expect(client.getTask(GetTaskRequest.fromJSON({ id: 'no-such-task' }))).rejects.toMatchObject({
      name: 'TaskNotFoundError',
    });
    const task = (await client.sendMessage(textMessage('push me'))) as Task;
    // A finished task: registering a webhook sends nothing, so the public URL below is never called.
    const config = {
      tenant: '',
      id: 'c1',
      taskId: task.id,
      url: 'https://hooks.example.com/a2a',
      token: 'tok-1',
      authentication: { scheme: 'Bearer', credentials: 'secret' },
    };
    expect(await client.createTaskPushNotificationConfig(config)).toMatchObject({
      id: 'c1',
      taskId: task.id,
      url: config.url,
      token: 'tok-1',
    });
    expect(await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'c1' })).toMatchObject({
      id: 'c1',
      url: config.url,
    });
    expect(
      (
        await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' })
      ).configs.map((c) => c.id),
    ).toEqual(['c1']);
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'c1' });
    await expect(client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'c1' })).rejects.toMatchObject(
      { name: 'TaskNotFoundError' },
    );
    // Plain http, and private addresses, are refused unless the operator allows them (pushAllowPrivate).
    for (const url of ['http://hooks.example.com/a2a', 'https://127.0.0.1/hook', 'https://169.254.169.254/latest']) {
      await expect(client.createTaskPushNotificationConfig({ ...config, url })).rejects.toMatchObject({
        name: 'RequestMalformedError',
      });
    }
    await expect(client.createTaskPushNotificationConfig({ ...config, taskId: 'no-such-task' })).rejects.toMatchObject({
      name: 'TaskNotFoundError',
    });
  });
});
