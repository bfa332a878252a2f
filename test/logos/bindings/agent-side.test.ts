/**
 * The agent side of the peer bindings (issue #27): an agent on this project's runtime, its faces on a real Waku
 * node of each binding's cluster, called by an outside caller of that binding (test/support/peer-agents/
 * peer-callers.ts, stock packages only) over loopback: the card heard on the discovery topic verifies with the
 * binding's scheme (and not once tampered with), a task completes, a slow one reports progress and is cancelled, and
 * on lp-0008 an `input-required` is answered on the same task. A priced skill is not announced on either.
 */
import { schnorr } from '@noble/curves/secp256k1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { LogosAgent, type SkillHandler } from '../../../src/logos/agent-runtime.ts';
import { peerFacesOn } from '../../../src/logos/bindings/agent-faces.ts';
import type { PeerBindingName } from '../../../src/logos/bindings/common/peer-card.ts';
import { PEER_NETWORK_PRESETS } from '../../../src/logos/network-presets.ts';
import { MemoryNetwork } from '../../../src/logos/transports/memory.ts';
import { WakuTransport } from '../../../src/logos/transports/waku.ts';
import { eventually } from '../../support/eventually.ts';
import { lp0008Caller, lp0008State, logosAgentCaller, pilotCaller } from '../../support/peer-agents/peer-callers.ts';
import { verifyBip340Jws, verifyEd25519Card } from '../../support/peer-agents/peer-crypto.ts';

const LP0008_BOARD = '/lp-0008/1/discovery-agents/json';

const skills: Record<string, SkillHandler> = {
  echo: (ctx) => ctx.text,
  slow: async (ctx) => {
    await ctx.progress('started');
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, 20_000);
      ctx.signal.addEventListener('abort', () => reject((clearTimeout(timer), ctx.signal.reason)), { once: true });
    });
    return ctx.text;
  },
  ask: async (ctx) => `hello, ${(await ctx.requestInput('what is your name?')).text}`,
};

const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
}, 30_000);

/** A started relay node on the binding's cluster, and an agent of our runtime with a face on it. */
async function agentOn(binding: PeerBindingName, discoveryTopic?: string) {
  const { clusterId, shards } = PEER_NETWORK_PRESETS[binding];
  const node = new WakuTransport({ clusterId, numShardsInCluster: shards, listen: ['/ip4/127.0.0.1/tcp/0'] });
  await node.start();
  stops.push(() => node.stop());
  const cardKey = schnorr.utils.randomSecretKey();
  const logs: string[] = [];
  const agent = new LogosAgent({
    card: {
      id: 'texts',
      name: 'Texts',
      description: 'echoes, slowly or not, and greets',
      version: '1.0.0',
      skills: [
        { id: 'echo', name: 'Echo', description: 'echoes its text' },
        { id: 'slow', name: 'Slow', description: 'echoes after a while' },
        { id: 'ask', name: 'Ask', description: 'asks a name, then greets it' },
      ],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: 'agent:texts' }],
    },
    transport: new MemoryNetwork().node('agent:texts'),
    cardKey,
    skills,
    announceEveryMs: 500,
    ackAfterMs: 50,
    peerFaces: peerFacesOn([{ name: binding, binding, discoveryTopic, node }], cardKey, (line) => logs.push(line)),
  });
  await agent.start();
  stops.push(() => agent.stop());
  expect(agent.peerFaces).toHaveLength(1);
  return { node, agent, face: agent.peerFaces[0]!, logs };
}

describe('an agent of our runtime on lp-0008 (cluster 3, shard 6), called by an outside caller', () => {
  it('is announced with a BIP-340 JWS card, and answers send, progress, cancel and a continuation', async () => {
    const { node, face } = await agentOn('lp-0008', LP0008_BOARD);
    const caller = await lp0008Caller(node.multiaddrs()[0]!, LP0008_BOARD);
    stops.push(() => caller.stop());
    const { kid, key } = face.keyApart!;
    const card = await eventually(() => caller.verifiedCard(key), 30_000);
    expect(verifyBip340Jws({ ...card, name: 'Texts2' }, key)).toBe(false);
    expect(card).toMatchObject({ url: `logos-messaging://${kid}`, 'x-logos': { lezAccount: kid } });
    const account = kid;

    const echo = await caller.task(account, 'echo', { text: 'hello lp-0008' });
    const done = await eventually(() => echo.updates().find((u) => lp0008State(u).state === 'completed'), 30_000);
    expect(lp0008State(done).text).toBe('hello lp-0008');
    expect(done.final).toBe(true);

    const slow = await caller.task(account, 'slow', { text: 'never' });
    await eventually(() => slow.updates().find((u) => lp0008State(u).text === 'started'), 30_000);
    await caller.cancel(slow);
    await eventually(() => slow.updates().find((u) => lp0008State(u).state === 'canceled'), 30_000);
    expect(slow.updates().some((u) => lp0008State(u).state === 'completed')).toBe(false);

    const ask = await caller.task(account, 'ask', {});
    const asked = await eventually(() => ask.updates().find((u) => lp0008State(u).state === 'input-required'), 30_000);
    expect(lp0008State(asked).text).toBe('what is your name?');
    await caller.answer(ask, 'Ada');
    const greeted = await eventually(() => ask.updates().find((u) => lp0008State(u).state === 'completed'), 30_000);
    expect(lp0008State(greeted).text).toBe('hello, Ada');

    const unknown = await caller.task(account, 'nope', {});
    const rejected = await eventually(() => unknown.updates().find((u) => lp0008State(u).state === 'rejected'), 30_000);
    expect(lp0008State(rejected).text).toContain('no skill "nope"');
  }, 120_000);
});

describe('an agent of our runtime on logos-agent (cluster 2, shard 4), called by an outside caller', () => {
  it('is announced with an Ed25519 card, and answers a task, its progress and a cancel', async () => {
    const { node } = await agentOn('logos-agent');
    const caller = await logosAgentCaller(node.multiaddrs()[0]!);
    stops.push(() => caller.stop());
    const card = await eventually(() => caller.verifiedCard(), 30_000);
    expect(verifyEd25519Card({ ...card, description: 'tampered' })).toBe(false);
    expect(card.address).toBe(`/logos-agent/1/a2a-${card.lezAccount as string}-inbox/proto`);

    const echo = await caller.task(card, 'echo', { text: 'hello logos-agent' });
    const done = await eventually(() => echo.updates().find((u) => u.state === 'completed'), 30_000);
    expect(done.result).toBe('hello logos-agent');

    const slow = await caller.task(card, 'slow', { text: 'never' });
    await eventually(() => slow.updates().find((u) => u.state === 'working'), 30_000);
    await caller.cancel(card, slow.taskId);
    await eventually(() => slow.updates().find((u) => u.state === 'canceled'), 30_000);

    const unknown = await caller.task(card, 'nope', {});
    const failed = await eventually(() => unknown.updates().find((u) => u.state === 'failed'), 30_000);
    expect(failed.result).toEqual({ error: expect.stringContaining('no skill "nope"') });
  }, 120_000);
});

describe('an agent of our runtime on pilot (cluster 2, shard 7), called by an outside caller', () => {
  it('is announced with an ES256K card, and answers each request once, signed and encrypted to its sender', async () => {
    const { node } = await agentOn('pilot');
    const caller = await pilotCaller(node.multiaddrs()[0]!);
    stops.push(() => caller.stop());
    const card = await eventually(() => caller.verifiedCard(), 30_000);
    expect((card.skills as { id: string }[]).map((skill) => skill.id)).toEqual(['echo', 'slow', 'ask']);

    const echo = await caller.task(card, 'echo', { text: 'hello pilot' });
    const done = await eventually(() => echo.answers()[0], 30_000);
    expect(done).toMatchObject({ result: { id: echo.taskId, status: { state: 'completed' }, result: 'hello pilot' } });

    const slow = await caller.task(card, 'slow', { text: 'never' });
    // No progress is answered: one answer per request, where the task comes to rest.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await caller.cancel(card, slow.taskId);
    const cancelled = await eventually(() => slow.answers()[0], 30_000);
    expect(cancelled).toMatchObject({ result: { id: slow.taskId, status: { state: 'canceled' } } });

    const unknown = await caller.task(card, 'nope', {});
    const failed = await eventually(() => unknown.answers()[0], 30_000);
    expect(failed).toMatchObject({
      result: { status: { state: 'failed' }, result: { error: expect.stringContaining('no skill "nope"') } },
    });
  }, 120_000);
});
