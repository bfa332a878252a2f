/**
 * The outside agents of `peer-agents/` as child processes, and the gateway's side they are tested against: a Waku
 * relay node of this project on the agent's cluster, listening on loopback, which the agent dials.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { PeerDecode } from '../../src/logos/bindings/common/peer-reply.ts';
import type { LogosTransport } from '../../src/logos/transport.ts';
import { WakuTransport } from '../../src/logos/transports/waku.ts';
import { stopChild, untilPrinted } from './child-process.ts';
import { eventually } from './eventually.ts';

export type PeerAgentScript = 'logos-agent' | 'pilot' | 'lp-0008';

export interface PeerAgentProcess {
  readonly child: ChildProcess;
  /** What the agent printed when it became ready (its account, keys…). */
  readonly ready: Record<string, unknown>;
  /** Every JSON line it printed so far. */
  readonly events: Record<string, unknown>[];
}

export function peerAgentScript(script: PeerAgentScript): string {
  return fileURLToPath(new URL(`./peer-agents/${script}.ts`, import.meta.url));
}

/** Starts an agent with `args` (its one JSON argument) and resolves once it says it is ready. */
export async function startPeerAgent(
  script: PeerAgentScript,
  args: Record<string, unknown>,
): Promise<PeerAgentProcess> {
  // Its stdin takes commands (the logos-agent's `hold` and `drain`); the others read none.
  const child = spawn(process.execPath, [peerAgentScript(script), JSON.stringify(args)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const events: Record<string, unknown>[] = [];
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) if (line.startsWith('{')) events.push(JSON.parse(line) as Record<string, unknown>);
  });
  const { match, code, output } = await untilPrinted(child, /\{"event":"ready".*\}\n/, `the ${script} agent`, 60_000);
  if (!match) throw new Error(`the ${script} agent exited with ${code}:\n${output}`);
  return { child, ready: JSON.parse(match[0]) as Record<string, unknown>, events };
}

/** Resolves with the first event the agent prints after this call that `matches`; fails after `timeoutMs`. */
async function nextEvent(
  agent: PeerAgentProcess,
  matches: (event: Record<string, unknown>) => boolean,
  send: () => void,
  timeoutMs = 30_000,
): Promise<Record<string, unknown>> {
  const from = agent.events.length;
  send();
  return eventually(() => agent.events.slice(from).find(matches), timeoutMs);
}

/**
 * Holds the logos-agent's inbox (peer-agents/logos-agent.ts): what reaches it from now until `drainBatch` is one
 * batch. Resolves once it holds.
 */
export async function holdBatch(agent: PeerAgentProcess): Promise<void> {
  await nextEvent(
    agent,
    (event) => event.event === 'holding',
    () => agent.child.stdin!.write('hold\n'),
  );
}

/** Drains the held batch at once; resolves with the task ids of its requests and cancels. */
export async function drainBatch(agent: PeerAgentProcess): Promise<{ requests: string[]; cancels: string[] }> {
  const drained = await nextEvent(
    agent,
    (event) => event.event === 'drained',
    () => agent.child.stdin!.write('drain\n'),
  );
  return { requests: drained.requests as string[], cancels: drained.cancels as string[] };
}

/** Resolves once the agent has printed an inbox message of `kind` for the task (before or after this call). */
export async function heardInInbox(agent: PeerAgentProcess, kind: string, taskId: string): Promise<void> {
  await eventually(
    () =>
      agent.events.some((event) => {
        const message = event.message as { kind?: string; taskId?: string } | undefined;
        return event.event === 'request' && message?.kind === kind && message.taskId === taskId;
      }) || undefined,
    30_000,
  );
}

/** The gateway's side: a relay node on `clusterId` (8 shards), started, listening on a free loopback port. */
export async function startGatewayNode(clusterId: number): Promise<WakuTransport> {
  const node = new WakuTransport({ clusterId, numShardsInCluster: 8, listen: ['/ip4/127.0.0.1/tcp/0'] });
  await node.start();
  return node;
}

/** What a subscription decoded and dropped, as it arrives; `stop` unsubscribes. */
export interface Decoded<T> {
  readonly values: T[];
  readonly dropped: string[];
  stop(): void;
}

/** Subscribes to `topic`, keeping what `decode` takes and the reasons of what it drops. */
export function collectDecoded<T>(
  transport: LogosTransport,
  topic: string,
  decode: (payload: Uint8Array) => PeerDecode<T>,
): Decoded<T> {
  const values: T[] = [];
  const dropped: string[] = [];
  const stop = transport.subscribe(topic, (payload) => {
    const decoded = decode(payload);
    if (decoded.ok) values.push(decoded.value);
    else dropped.push(decoded.reason);
  });
  return { values, dropped, stop };
}

const beds: { node?: WakuTransport; agent?: PeerAgentProcess }[] = [];

/**
 * A gateway-side node on `clusterId`, what `listen` sets up on it before the agent starts (its discovery topic, say),
 * and the agent `script` dialled to it with `args`. `stopPeerBeds` (an afterEach) stops them.
 */
export async function startPeerBed<T>(
  script: PeerAgentScript,
  clusterId: number,
  listen: (node: WakuTransport) => T,
  args: Record<string, unknown> = {},
): Promise<{ node: WakuTransport; agent: PeerAgentProcess; heard: T }> {
  const bed: (typeof beds)[number] = {};
  beds.push(bed);
  const node = (bed.node = await startGatewayNode(clusterId));
  const heard = listen(node);
  const agent = (bed.agent = await startPeerAgent(script, { peer: node.multiaddrs()[0], clusterId, ...args }));
  return { node, agent, heard };
}

export async function stopPeerBeds(): Promise<void> {
  for (const { node, agent } of beds.splice(0)) {
    await stopChild(agent?.child);
    await node?.stop();
  }
}
