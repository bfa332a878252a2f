/**
 * An agent whose results do not fit in one Waku message (150 KiB), on whatever transport a test gives it, and a
 * streaming call that collects the artifact chunks a gateway relays from it: for the tests that check a transport
 * lets an agent cut its result into chunks.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { LogosAgent, builtinOptions } from '../../src/logos/agent-runtime.ts';
import { DEFAULT_DISCOVERY_TOPIC } from '../../src/logos/discovery.ts';
import type { LogosTransport } from '../../src/logos/transport.ts';
import { eventually, rpc } from './gateway.ts';
import { openRpcStream } from './sse.ts';

/** Larger than one message, with characters of 2 and 4 bytes that must not be cut in half. */
const LARGE_TEXT = 'é🙂abc'.repeat(40_000);

/**
 * The agent `big`: skill `text` answers LARGE_TEXT, skill `data` a data object larger than one message, skill `told`
 * the texts of the caller's message parts as its skill sees them, joined with "|" (after checking they make
 * `params.text`).
 */
export function largeResultAgent(transport: LogosTransport): LogosAgent {
  return new LogosAgent({
    transport,
    ...builtinOptions({ discoveryTopic: DEFAULT_DISCOVERY_TOPIC, cardKey: randomBytes(32), announceEveryMs: 500 }),
    card: {
      id: 'big',
      name: 'Big',
      description: 'Answers with more than one message holds.',
      version: '1.0.0',
      skills: [
        { id: 'text', name: 'Text', description: 'A long text.', tags: ['test'] },
        { id: 'data', name: 'Data', description: 'A large data object.', tags: ['test'] },
        { id: 'told', name: 'Told', description: 'The texts of the message it was sent.', tags: ['test'] },
      ],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: transport.address }],
    },
    skills: {
      text: () => LARGE_TEXT,
      data: () => ({ blob: 'z'.repeat(200_000) }),
      told: (ctx) => {
        const parts = (ctx.message?.parts ?? []) as { text?: string }[];
        const texts = parts.flatMap((part) => (typeof part.text === 'string' ? [part.text] : []));
        if (texts.join('\n') !== ctx.text) throw new Error('the message and params.text disagree');
        return texts.join('|');
      },
    },
  });
}

/**
 * Once the gateway lists `big`, asks it for its long text over SSE and checks the answer came as artifact chunks, in
 * order, which the gateway reassembled into the task's one artifact.
 */
export async function expectLargeTextInChunks(agentUrl: string, messageId: string): Promise<void> {
  await eventually(async () => {
    const response = await fetch(`${agentUrl}/.well-known/agent-card.json`);
    return response.status === 200 ? true : undefined;
  }, 20_000);
  const chunks = await streamedArtifactChunks(agentUrl, messageId);
  expect(chunks.length).toBeGreaterThan(1);
  // JSON leaves out false flags: the first chunk starts the artifact, the last closes it.
  expect(chunks[0]).toMatchObject({ artifact: { artifactId: 'result' } });
  expect([chunks[0].append, chunks[0].lastChunk]).toEqual([undefined, undefined]);
  expect(chunks.at(-1)).toMatchObject({ append: true, lastChunk: true });
  expect(chunks.map((chunk) => chunk.artifact.parts[0].text).join('')).toBe(LARGE_TEXT);
  const { body } = await rpc(agentUrl, 'GetTask', { id: chunks[0].taskId });
  expect(body.result.status.state).toBe('TASK_STATE_COMPLETED');
  expect(body.result.artifacts).toHaveLength(1);
  // A2A's append adds the chunk's parts: the artifact holds the pieces, in order.
  const parts = body.result.artifacts[0].parts;
  expect(parts).toHaveLength(chunks.length);
  expect(parts.map((part: any) => part.text).join('')).toBe(LARGE_TEXT);
}

/**
 * Sends `agentUrl` a request one byte over `limit` (what one message of the network carries): it is refused with
 * -32602 naming the limit, and no task is recorded.
 */
export async function expectOversizedRequestRefused(agentUrl: string, messageId: string, limit: number): Promise<void> {
  const { body } = await rpc(agentUrl, 'SendMessage', {
    message: { messageId, role: 'ROLE_USER', parts: [{ text: 'x'.repeat(limit + 1) }] },
  });
  expect(body.error).toMatchObject({ code: -32602 });
  expect(body.error!.message).toContain(`at most ${limit}`);
  const tasks = await rpc(agentUrl, 'ListTasks', {});
  expect(tasks.body.result.tasks.map((task: any) => task.history?.[0]?.messageId)).not.toContain(messageId);
}

/**
 * A text of some 100,000 characters (130 KB of UTF-8), more than half the limit, goes to the agent and comes back whole:
 * once in one text part with line breaks (to `echo`, which answers `params.text`), once in two parts (to `big`'s
 * `told`, which answers the message's parts as its skill sees them).
 */
export async function expectLargeRequestAnswered(gatewayUrl: string, limit: number): Promise<void> {
  const text = 'Grüße 🙂 line\n'.repeat(100_000 / 16);
  expect(new TextEncoder().encode(text).byteLength).toBeGreaterThan(limit / 2);
  const echoed = await rpc(`${gatewayUrl}/agents/echo`, 'SendMessage', {
    message: { messageId: `large-${Date.now()}`, role: 'ROLE_USER', parts: [{ text }] },
  });
  expect(echoed.body.error).toBeUndefined();
  expect(echoed.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  expect(echoed.body.result.task.artifacts[0].parts[0].text).toBe(text);
  const half = 'x'.repeat(50_000);
  const told = await rpc(`${gatewayUrl}/agents/big`, 'SendMessage', {
    message: {
      messageId: `large-parts-${Date.now()}`,
      role: 'ROLE_USER',
      parts: [{ text: half }, { text: `${half}y` }],
      metadata: { skill: 'told' },
    },
  });
  expect(told.body.error).toBeUndefined();
  expect(told.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  expect(told.body.result.task.artifacts[0].parts[0].text).toBe(`${half}|${half}y`);
}

/** Asks `big` for its long text over SSE and returns the artifact updates streamed back, in order. */
async function streamedArtifactChunks(agentUrl: string, messageId: string): Promise<any[]> {
  const stream = await openRpcStream(agentUrl, 'SendStreamingMessage', {
    message: { messageId, role: 'ROLE_USER', parts: [{ text: 'go' }], metadata: { skill: 'text' } },
  });
  const events = (await stream.rest()) as { result: { artifactUpdate?: any } }[];
  return events.flatMap((event) => (event.result.artifactUpdate ? [event.result.artifactUpdate] : []));
}
