/**
 * The caller's side of the binding driven by hand (hire-task.ts through caller.ts): an agent played by the test on
 * the in-process network answers as it likes, out of order, late, twice or not at all, and the hire keeps the rules
 * of docs/binding.md: replies in `seq` order and from the agent only (§6.1, §2.2), a gap skipped after the reorder
 * wait, the request sent again while unanswered (§5.5), a lost follow-up sent again (§5.3), a cancel given up on
 * after the cancel timeout (§5.4 b), a chunked result put together (§8.3).
 */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogosCaller, type HireOutcome } from '../../../src/logos/agent-runtime/caller.ts';
import { signLogosCard } from '../../../src/logos/card-signature.ts';
import {
  decodeGatewayEnvelope,
  encodeEnvelope,
  taskStatusTopic,
  type AgentEnvelopeInput,
  type DistributiveOmit,
  type GatewayEnvelope,
  type TaskRequest,
} from '../../../src/logos/envelope.ts';
import { statusKeyBytes } from '../../../src/logos/status-key.ts';
import { MemoryNetwork, type MemoryTransport } from '../../../src/logos/transports/memory.ts';
import { eventually } from '../../support/gateway.ts';

let network: MemoryNetwork;
let agent: MemoryTransport;
let caller: LogosCaller;
/** What the played agent received, in order. */
let heard: GatewayEnvelope[];

const card = () =>
  signLogosCard(
    {
      id: 'played',
      name: 'Played',
      description: 'Answers as the test says.',
      version: '1',
      skills: [{ id: 'go', name: 'go', description: '' }],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: 'agent:played' }],
    },
    new Uint8Array(randomBytes(32)),
  );

/** Publishes a reply of the task of `request` on its status topic, from `from` (the agent by default). */
async function reply(
  request: TaskRequest,
  body: DistributiveOmit<AgentEnvelopeInput, 'v' | 'id' | 'task_id'>,
  from = agent,
) {
  const envelope = { v: 1, id: `r${body.seq}-${Math.random()}`, task_id: request.task_id, ...body };
  await from.publish(taskStatusTopic(request.task_id), encodeEnvelope(envelope as AgentEnvelopeInput), {
    key: statusKeyBytes(request.status_key),
  });
}

const requestOf = () =>
  eventually(() => heard.find((envelope): envelope is TaskRequest => envelope.type === 'task_request'), 5_000);

beforeEach(async () => {
  network = new MemoryNetwork();
  heard = [];
  agent = network.node('agent:played');
  await agent.start();
  agent.onDirect((payload) => {
    const decoded = decodeGatewayEnvelope(payload);
    if (decoded.ok) heard.push(decoded.envelope);
  });
  const transport = network.node('agent:hirer');
  await transport.start();
  caller = new LogosCaller({
    transport,
    timers: { reorderWaitMs: 100, cancelTimeoutMs: 300, agentTimeoutMs: 10_000 },
    log: () => {},
  });
});

afterEach(async () => {
  await agent.stop();
});

const hire = () => caller.hire({ card: card() }, 'go', 'x');

describe('a hire, against an agent played by hand', () => {
  it('applies replies in seq order, whatever order they come in, and ignores another publisher holding the key', async () => {
    const pending = hire();
    const request = await requestOf();
    const mallory = network.node('agent:mallory');
    await mallory.start();
    await reply(
      request,
      { type: 'task_result', seq: 1, state: 'failed', error: { code: 'x', message: 'forged' } },
      mallory,
    );
    await reply(request, { type: 'task_result', seq: 2, state: 'completed', result: 'done' });
    await reply(request, {
      type: 'task_status',
      seq: 1,
      state: 'working',
      artifact: { artifact_id: 'notes', parts: [{ text: 'first' }] },
    });
    expect(await pending).toMatchObject({
      kind: 'completed',
      result: 'done',
      artifacts: [{ artifact_id: 'notes', parts: [{ text: 'first' }] }],
    });
  });

  it('skips a reply that never comes, after the reorder wait', async () => {
    const pending = hire();
    const request = await requestOf();
    await reply(request, { type: 'task_result', seq: 2, state: 'completed', result: 'without 1' });
    expect(await pending).toMatchObject({ kind: 'completed', result: 'without 1' });
  });

  it('sends the request again, under a fresh id, while nothing answers it', async () => {
    const pending = hire();
    const first = await requestOf();
    const again = await eventually(
      () => heard.filter((envelope) => envelope.type === 'task_request')[1] as TaskRequest | undefined,
      5_000,
    );
    expect(again.id).not.toBe(first.id);
    expect({ ...again, id: first.id }).toEqual(first);
    await reply(first, { type: 'task_result', seq: 1, state: 'completed', result: 'heard the second' });
    expect(await pending).toMatchObject({ kind: 'completed' });
  });

  it('sends a lost follow-up again, the same bytes, when the agent repeats its question', async () => {
    const pending = hire();
    const request = await requestOf();
    await reply(request, { type: 'task_status', seq: 1, state: 'input-required', message: 'name?' });
    const asked = await pending;
    if (asked.kind !== 'input-required') throw new Error(asked.kind);
    const answered = asked.reply('Ada');
    const input = await eventually(() => heard.find((envelope) => envelope.type === 'task_input'), 5_000);
    // Its heartbeat repeats the question: the follow-up did not arrive (as far as the hire can tell).
    await reply(request, { type: 'task_status', seq: 1, state: 'input-required', message: 'name?' });
    const inputs = await eventually(() => {
      const sent = heard.filter((envelope) => envelope.type === 'task_input');
      return sent.length === 2 ? sent : undefined;
    }, 5_000);
    expect(inputs[1]).toEqual(input);
    expect(input).toMatchObject({ params: { text: 'Ada' }, message: { parts: [{ text: 'Ada' }] } });
    await reply(request, { type: 'task_result', seq: 2, state: 'completed', result: 'hello, Ada' });
    expect(await answered).toMatchObject({ kind: 'completed', result: 'hello, Ada' });
  });

  it('gives up on a cancel the agent does not confirm, and puts a chunked result together', async () => {
    const cancelled = new AbortController();
    const pending = caller.hire({ card: card() }, 'go', 'x', { signal: cancelled.signal });
    await requestOf();
    cancelled.abort();
    expect(await pending).toMatchObject({ kind: 'cancelled', confirmed: false });
    expect(heard.map((envelope) => envelope.type)).toContain('cancel');

    heard = [];
    const chunked: Promise<HireOutcome> = hire();
    const request = await requestOf();
    const chunk = (seq: number, text: string, append: boolean, last: boolean) =>
      reply(request, {
        type: 'task_status',
        seq,
        state: 'working',
        artifact: { artifact_id: 'result', name: 'result', parts: [{ text }], append, last_chunk: last },
      });
    await chunk(1, 'Hel', false, false);
    await chunk(2, 'lo', true, true);
    await reply(request, { type: 'task_result', seq: 3, state: 'completed' });
    expect(await chunked).toMatchObject({ kind: 'completed', result: 'Hello' });
  });
});
