/**
 * A pushed stream of a task's changes (ChangeStream): what it holds until its opening is out, how a follow-up's
 * stream opens, when it lets go of the task, and how the gateway's shutdown ends it.
 */
import { getEventListeners } from 'node:events';
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { ChangeStreams, type ChangeStream } from '../../src/bridge/change-stream.ts';
import type { EventSink } from '../../src/bridge/event-source.ts';
import { isInterrupted, isTerminal } from '../../src/bridge/mapping.ts';
import type { ChangeListener, TaskChange } from '../../src/bridge/task-change.ts';
import { statusEvent } from '../../src/bridge/task-events.ts';

const endsSend = (task: Task) => isTerminal(task.status?.state) || isInterrupted(task.status?.state);

function task(state: TaskState): Task {
  return {
    id: 't1',
    contextId: 'c1',
    status: { state, message: undefined, timestamp: undefined },
    artifacts: [],
    history: [],
    metadata: undefined,
  };
}

function change(state: TaskState): TaskChange {
  const changed = task(state);
  return { events: [statusEvent(changed)], task: changed };
}

/** What the stream told its sink, in order: each event's case and state, then how it ended. */
function recordingSink(): { sink: EventSink<StreamResponse>; told: string[] } {
  const told: string[] = [];
  const stateOf = (event: StreamResponse) => {
    const payload = event.payload;
    if (payload?.$case === 'task') return `task ${payload.value.status?.state}`;
    if (payload?.$case === 'statusUpdate') return `status ${payload.value.status?.state}`;
    return payload?.$case ?? 'none';
  };
  return {
    told,
    sink: {
      event: (event) => told.push(stateOf(event)),
      end: () => told.push('end'),
      fail: (error) => told.push(`fail ${String(error)}`),
    },
  };
}

/** Streams on an engine stand-in that records which listeners let go of which task. */
function streamsOn(shutdown?: AbortSignal, current: Task = task(TaskState.TASK_STATE_WORKING)) {
  const unlistened: [string, ChangeListener][] = [];
  const streams = new ChangeStreams(
    { unlisten: (taskId, listener) => unlistened.push([taskId, listener]), current: async () => current },
    shutdown,
  );
  return { streams, unlistened };
}

const W = TaskState.TASK_STATE_WORKING;
const DONE = TaskState.TASK_STATE_COMPLETED;

describe('ChangeStream', () => {
  it('holds the changes that come before its opening is out, then passes them on in order and ends at the last', () => {
    const { streams, unlistened } = streamsOn();
    const { sink, told } = recordingSink();
    const stream = streams.stream(sink, endsSend);
    stream.listener(change(W));
    stream.following('t1');
    stream.emit({ payload: { $case: 'task', value: task(TaskState.TASK_STATE_SUBMITTED) } });
    stream.listener(change(DONE));
    expect(told).toEqual([`task ${TaskState.TASK_STATE_SUBMITTED}`]);
    stream.flow();
    expect(told).toEqual([`task ${TaskState.TASK_STATE_SUBMITTED}`, `status ${W}`, `status ${DONE}`, 'end']);
    expect(unlistened).toEqual([['t1', stream.listener]]);
    stream.listener(change(W));
    expect(told).toHaveLength(4);
  });

  it('opens a follow-up with the task as its first change left it, then passes the later changes', () => {
    const { streams } = streamsOn();
    const { sink, told } = recordingSink();
    const stream = streams.stream(sink, endsSend);
    stream.following('t1');
    stream.flow({ firstAsTask: true });
    stream.listener(change(W));
    stream.listener(change(TaskState.TASK_STATE_INPUT_REQUIRED));
    expect(told).toEqual([`task ${W}`, `status ${TaskState.TASK_STATE_INPUT_REQUIRED}`, 'end']);
  });

  it('lets go of the task when the client leaves, even before it knew which task it followed', () => {
    const { streams, unlistened } = streamsOn();
    const { sink, told } = recordingSink();
    const stream: ChangeStream = streams.stream(sink, endsSend);
    stream.stop();
    stream.following('t1');
    expect(unlistened).toEqual([['t1', stream.listener]]);
    stream.emit({ payload: { $case: 'task', value: task(W) } });
    stream.flow();
    expect(told).toEqual([]);
  });

  it('reports a failure to its sink once, and nothing after it', () => {
    const { streams } = streamsOn();
    const { sink, told } = recordingSink();
    const stream = streams.stream(sink, endsSend);
    stream.fail(new Error('no such task'));
    stream.fail(new Error('again'));
    stream.end();
    expect(told).toEqual(['fail Error: no such task']);
  });

  it('at shutdown, passes what it held, then ends with the task’s current status; later changes are not taken', async () => {
    const shutdown = new AbortController();
    const { streams, unlistened } = streamsOn(shutdown.signal, task(TaskState.TASK_STATE_WORKING));
    const open = recordingSink();
    const opening = recordingSink();
    const flowing = streams.stream(open.sink, endsSend);
    flowing.following('t1');
    flowing.flow();
    const held = streams.stream(opening.sink, endsSend);
    held.following('t1');
    held.listener(change(W));
    shutdown.abort();
    held.listener(change(DONE));
    await new Promise((resolve) => setImmediate(resolve));
    expect(open.told).toEqual([`status ${W}`, 'end']);
    expect(opening.told).toEqual([]);
    held.flow();
    await new Promise((resolve) => setImmediate(resolve));
    expect(opening.told).toEqual([`status ${W}`, `status ${W}`, 'end']);
    expect(unlistened.map(([taskId]) => taskId)).toEqual(['t1', 't1']);
  });

  it('holds the gateway’s shutdown signal only while a stream is open, so that streams of old handlers are freed', () => {
    const shutdown = new AbortController();
    const { streams } = streamsOn(shutdown.signal);
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
    const first = streams.stream(recordingSink().sink, endsSend);
    const second = streams.stream(recordingSink().sink, endsSend);
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(1);
    first.stop();
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(1);
    second.stop();
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  });

  it('a follow-up that never opened ends without a status at shutdown', async () => {
    const shutdown = new AbortController();
    shutdown.abort();
    const { streams } = streamsOn(shutdown.signal);
    const { sink, told } = recordingSink();
    const stream = streams.stream(sink, endsSend);
    stream.following('t1');
    await new Promise((resolve) => setImmediate(resolve));
    stream.flow({ firstAsTask: true });
    expect(told).toEqual(['end']);
  });
});
