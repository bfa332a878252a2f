/** One task's replies apart from the runtime: numbered, published in order under the status key, replayed, chunked. */
import { beforeEach, describe, expect, it } from 'vitest';
import { ReplyLog, Retention, unknownTaskReply } from '../../../src/logos/agent-runtime/reply-log.ts';
import { decodeAgentEnvelope, taskStatusTopic, type AgentEnvelope } from '../../../src/logos/envelope.ts';
import { newStatusKey, statusKeyBytes } from '../../../src/logos/status-key.ts';
import { MemoryNetwork, type MemoryTransport } from '../../../src/logos/transports/memory.ts';
import { eventually } from '../../support/gateway.ts';

let agent: MemoryTransport;
let heard: AgentEnvelope[];
const statusKey = newStatusKey();

beforeEach(async () => {
  const network = new MemoryNetwork();
  agent = network.node('agent:a');
  const gateway = network.node('gateway');
  await Promise.all([agent.start(), gateway.start()]);
  heard = [];
  gateway.subscribe(
    taskStatusTopic('t1'),
    (payload) => {
      const decoded = decodeAgentEnvelope(payload);
      if (decoded.ok) heard.push(decoded.envelope);
    },
    { key: statusKeyBytes(statusKey) },
  );
});

const log = (maxPayloadBytes = agent.maxPayloadBytes) =>
  new ReplyLog('t1', statusKey, {
    transport: { publish: (topic, payload, options) => agent.publish(topic, payload, options), maxPayloadBytes },
    agentId: 'a',
  });

describe('a task’s reply log', () => {
  it('numbers replies from 1 and publishes them in that order on the task’s status topic, under its key', async () => {
    const replies = log();
    expect(replies.seq).toBe(0);
    void replies.reply({ type: 'task_status', state: 'working' });
    void replies.reply({ type: 'task_status', state: 'working', message: 'halfway' });
    await replies.reply({ type: 'task_result', state: 'completed', result: 'done' });
    expect(replies.seq).toBe(3);
    expect(heard.map((e) => [e.seq, e.type, e.task_id])).toEqual([
      [1, 'task_status', 't1'],
      [2, 'task_status', 't1'],
      [3, 'task_result', 't1'],
    ]);
    expect(new Set(heard.map((e) => e.id)).size).toBe(3);
  });

  it('replays the replies after a seq, and the last one again for the keep-alive', async () => {
    const replies = log();
    for (const message of ['one', 'two', 'three'])
      await replies.reply({ type: 'task_status', state: 'working', message });
    heard.length = 0;
    replies.replay(1);
    await eventually(() => heard.length >= 2 || undefined);
    expect(heard.map((e) => e.seq)).toEqual([2, 3]);
    replies.beat();
    await eventually(() => heard.length >= 3 || undefined);
    expect(heard[2]!.seq).toBe(3);
  });

  it('sends a completed result too large for one message as artifact chunks, then the result without it', async () => {
    const replies = log(6_000);
    const result = 'x'.repeat(20_000);
    await replies.sendResult({ type: 'task_result', state: 'completed', result });
    const chunks = heard.filter((e) => e.type === 'task_status');
    const last = heard.at(-1)!;
    expect(chunks.length).toBeGreaterThan(3);
    expect(last).toMatchObject({ type: 'task_result', state: 'completed', seq: chunks.length + 1 });
    expect('result' in last).toBe(false);
    const text = chunks.map((e) => (e.type === 'task_status' ? (e.artifact?.parts[0] as { text: string }).text : ''));
    expect(text.join('')).toBe(result);
  });

  it('answers an unknown task with a failure numbered after what the gateway has', () => {
    expect(unknownTaskReply('t9', 4)).toMatchObject({
      task_id: 't9',
      seq: 5,
      type: 'task_result',
      state: 'failed',
      error: { code: 'unknown_task' },
    });
  });
});

describe('retention of finished tasks', () => {
  it('forgets the oldest past the count limit', () => {
    const retention = new Retention(60_000, 2);
    expect([retention.retain('a', 0), retention.retain('b', 1), retention.retain('c', 2)]).toEqual([[], [], ['a']]);
  });

  it('forgets those finished longer ago than the retention, oldest first, when another finishes', () => {
    const retention = new Retention(1_000, 10);
    retention.retain('a', 0);
    retention.retain('b', 500);
    expect(retention.retain('c', 1_200)).toEqual(['a']);
    expect(retention.retain('d', 1_600)).toEqual(['b']);
    // All those past the retention at once, oldest first.
    retention.retain('e', 1_700);
    expect(retention.retain('f', 5_000)).toEqual(['c', 'd', 'e']);
    expect(retention.retain('g', 5_001)).toEqual([]);
  });

  it('keeps a task finished again in its first place', () => {
    const retention = new Retention(60_000, 2);
    retention.retain('a', 0);
    retention.retain('b', 1);
    expect(retention.retain('a', 2)).toEqual([]);
    expect(retention.retain('c', 3)).toEqual(['a']);
  });
});
