/**
 * A published HTTP agent on the peer bindings' networks (issue #27): gateway B publishes a real A2A agent over HTTP
 * (the SDK's Express server, its own process) and has an lp-0008, a logos-agent and a pilot network configured;
 * gateway A follows only the lp-0008 network (with the card key B's log names, as the binding publishes it apart),
 * gateway C the logos-agent and pilot ones, which share the cluster (2) of the gateways' own nodes. Each peer entry
 * is found, verified and called in its binding's words. An official A2A client calls it through A and C (send and stream), and a tampered copy
 * of each card is refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState, type Message, type StreamResponse, type Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../../src/gateway/gateway.ts';
import { clientFor, collect, eventually, textMessage } from '../../support/gateway.ts';
import { startHttpAgent, type HttpAgent } from '../../support/http-agent.ts';
import { startWakuGateway } from '../../support/waku-gateway.ts';

const BOARD = '/lp-0008/1/discovery-agents/json';
const LOGOS_AGENT_BOARD = '/logos-agent/1/a2a-discovery/proto';
const PILOT_BOARD = '/pilot/1/discovery/proto';

/** How many cards the gateway refused for a bad signature so far. */
async function badSignatures(gateway: Gateway): Promise<number> {
  const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
  return Number(/logos_a2a_discovery_drops_total\{reason="badSignature"\} (\d+)/.exec(metrics)?.[1] ?? 0);
}

let dir: string;
let agent: HttpAgent;
let gatewayA: Gateway;
let gatewayB: Gateway;
let gatewayC: Gateway;
const logsB: string[] = [];

const text = (parts: Message['parts'] | undefined) =>
  (parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
const outputOf = (task: Task) => task.artifacts.map((artifact) => text(artifact.parts)).join('|');
const asTask = (result: Task | Message): Task => {
  if (!('status' in result)) throw new Error(`a message, not a task: ${text(result.parts)}`);
  return result;
};

/** A gateway following one peer network, on a node of its own listening on loopback. */
const follower = (name: string, network: Record<string, unknown>) =>
  startWakuGateway(join(dir, name), { overrides: { networks: [{ entryNodes: [], ...network } as never] } });

const joinAddressOf = (gateway: Gateway, network: string) => gateway.peerNetworks.nodeOf(network)!.joinAddresses();

/**
 * The id a follower serves the agent under, as a peer agent of the binding's card scheme (C, sharing B's own node,
 * lists it in our binding too, under its own id).
 */
async function listedAt(gateway: Gateway, scheme: string): Promise<string> {
  return eventually(async () => {
    const { agents } = (await (await fetch(`${gateway.url}/agents`)).json()) as {
      agents: { id: string; name: string; cardScheme?: string }[];
    };
    return agents.find((listed) => listed.name === 'Weather Desk' && listed.cardScheme === scheme)?.id;
  }, 90_000);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-a2a-published-on-peers-'));
  agent = await startHttpAgent();
  // The card key B's agent signs its lp-0008 card with is derived per agent: A is configured with it once B says it.
  gatewayC = await startWakuGateway(join(dir, 'c'), {
    overrides: {
      networks: [
        { name: 'logos-agent', entryNodes: [] },
        { name: 'pilot', entryNodes: [] },
      ],
    },
  });
  gatewayB = await startWakuGateway(join(dir, 'b'), {
    overrides: {
      published: [{ url: agent.url, id: 'weather-desk' }],
      networks: [
        { name: 'lp-0008', entryNodes: [], discoveryTopic: BOARD },
        { name: 'logos-agent', entryNodes: [] },
        { name: 'pilot', entryNodes: [] },
      ],
      // The logos-agent network is on the cluster of the gateways' own (2, shard 4 being the binding's): it goes
      // through their own nodes, so B's joins C's.
      transport: {
        kind: 'waku',
        listen: ['/ip4/127.0.0.1/tcp/0'],
        keyFile: join(dir, 'b', 'gateway.key'),
        peers: gatewayC.network.joinAddresses(),
      },
    },
    log: (line) => logsB.push(line),
  });
  const announced = logsB.map((line) =>
    /lp-0008 card on network lp-0008 is signed by (\S+), key ([0-9a-f]{64})/.exec(line),
  );
  const [, kid, key] = announced.find((match) => match !== null)!;
  gatewayA = await follower('a', {
    name: 'lp-0008',
    discoveryTopic: BOARD,
    bootstrap: joinAddressOf(gatewayB, 'lp-0008'),
    cardKeys: { [kid!]: key! },
  });
}, 120_000);

afterAll(async () => {
  for (const gateway of [gatewayA, gatewayC, gatewayB]) await gateway?.stop();
  await agent?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe.each([
  { binding: 'lp-0008', gateway: () => gatewayA, board: BOARD, scheme: 'BIP-340 JWS' },
  { binding: 'logos-agent', gateway: () => gatewayC, board: LOGOS_AGENT_BOARD, scheme: 'Ed25519' },
  // One answer per request: its served card says it does not stream, and the official client sends instead.
  { binding: 'pilot', gateway: () => gatewayC, board: PILOT_BOARD, scheme: 'ES256K pinned', streams: false },
])('a published HTTP agent found on $binding', ({ binding, gateway, board, scheme, streams = true }) => {
  it('is served verified, in the binding it was heard on, and answers send and stream', async () => {
    const id = await listedAt(gateway(), scheme);
    const card = (await (await fetch(`${gateway().url}/agents/${id}/.well-known/agent-card.json`)).json()) as {
      capabilities: { extensions: { uri: string; params: { logosInterfaces?: { version: string }[] } }[] };
    };
    const logos = card.capabilities.extensions.find((extension) => extension.params.logosInterfaces);
    expect(logos?.params.logosInterfaces?.[0]?.version).toBe(binding);
    const { agents } = (await (await fetch(`${gateway().url}/agents`)).json()) as {
      agents: { id: string; verified?: boolean }[];
    };
    expect(agents.find((listed) => listed.id === id)?.verified).toBe(true);

    const client = await clientFor(`${gateway().url}/agents/${id}`);
    const sent = asTask(await client.sendMessage(textMessage('hello')));
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(outputOf(sent)).toContain('echo: hello');

    const events = await collect(client.sendMessageStream(textMessage('streamed')));
    const last = events.at(-1)!.payload;
    const state =
      last?.$case === 'statusUpdate'
        ? last.value.status?.state
        : last?.$case === 'task'
          ? last.value.status?.state
          : undefined;
    expect(state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(events.some((event: StreamResponse) => event.payload?.$case === 'statusUpdate')).toBe(streams);
  }, 120_000);

  it('refuses a tampered copy of its card, counting a bad signature', async () => {
    await listedAt(gateway(), scheme);
    // A copy of the card as heard, renamed: its signature no longer covers it.
    const node = gateway().peerNetworks.nodeOf(binding)!.transport;
    const heard: Record<string, unknown>[] = [];
    const stop = node.subscribe(board, (payload) => heard.push(JSON.parse(new TextDecoder().decode(payload))));
    const card = await eventually(() => heard.find((c) => c.name === 'Weather Desk'), 90_000).finally(stop);
    const sender = gatewayB.peerNetworks.nodeOf(binding)!.transport;
    const before = await badSignatures(gateway());
    await eventually(async () => {
      await sender.publish(board, new TextEncoder().encode(JSON.stringify({ ...card, name: 'Weather Desk 2' })));
      return (await badSignatures(gateway())) > before || undefined;
    }, 30_000);
    const { agents } = (await (await fetch(`${gateway().url}/agents`)).json()) as { agents: { name: string }[] };
    expect(agents.map((listed) => listed.name)).not.toContain('Weather Desk 2');
  }, 120_000);
});
