/**
 * Child-process entry of bench/stream-gateway.ts: the `held` agent (bench/held-agent.ts) in a process of its own,
 * as a real agent runs, so that the gateway's memory per stream counts the gateway alone. Its Logos node is a
 * stand-in for the network: what it sends and publishes goes over IPC to the gateway's process, where a node of
 * the in-process network at the agent's address delivers it, and hands back what is sent to that address.
 *
 * Protocol over IPC (gateway process ⇄ this one), with `advanced` serialisation (payloads stay bytes):
 *   → { type: 'ready', card }
 *   ← { type: 'direct', payload, sender }      → { type: 'send', address, payload } / { type: 'publish', topic,
 *                                                  payload, key? }
 *   ← { type: 'measure' }                       → { type: 'measured', held, rss, heapUsed } (after a full GC)
 *   ← { type: 'release' }                       every held task completes
 */
import { DEFAULT_MAX_ENVELOPE_BYTES } from '../src/logos/envelope.ts';
import type { LogosTransport, PayloadHandler, TopicOptions } from '../src/logos/transport.ts';
import { HELD_AGENT_ADDRESS, startHeldAgent } from './held-agent.ts';

export type AgentProcessMessage =
  { type: 'direct'; payload: Uint8Array; sender: string | undefined } | { type: 'measure' } | { type: 'release' };

export type GatewaySideMessage =
  | { type: 'ready'; card: unknown }
  | { type: 'send'; address: string; payload: Uint8Array }
  | { type: 'publish'; topic: string; payload: Uint8Array; key?: Uint8Array }
  | { type: 'measured'; held: number; rss: number; heapUsed: number };

if (!process.send) throw new Error('bench/stream-agent.ts must run as a child process with IPC.');
const send = (message: GatewaySideMessage) => process.send!(message);
const gc = (globalThis as { gc?: () => void }).gc;

/** The agent's node: IPC to the gateway's process, which relays on its in-process network. */
class IpcTransport implements LogosTransport {
  readonly address = HELD_AGENT_ADDRESS;
  readonly maxPayloadBytes = DEFAULT_MAX_ENVELOPE_BYTES;
  handler: PayloadHandler | undefined;

  async start(): Promise<void> {}
  async stop(): Promise<void> {}

  async send(address: string, payload: Uint8Array): Promise<void> {
    send({ type: 'send', address, payload });
  }

  onDirect(handler: PayloadHandler): () => void {
    this.handler = handler;
    return () => (this.handler = undefined);
  }

  async publish(topic: string, payload: Uint8Array, options: TopicOptions = {}): Promise<void> {
    send({ type: 'publish', topic, payload, ...(options.key ? { key: options.key } : {}) });
  }

  subscribe(): () => void {
    throw new Error('the held agent subscribes to no topic');
  }
}

const transport = new IpcTransport();
const held = await startHeldAgent(transport);

process.on('message', (message: AgentProcessMessage) => {
  switch (message.type) {
    case 'direct':
      transport.handler?.(message.payload, { sender: message.sender });
      break;
    case 'measure': {
      gc?.();
      const { rss, heapUsed } = process.memoryUsage();
      send({ type: 'measured', held: held.held(), rss, heapUsed });
      break;
    }
    case 'release':
      held.release();
      break;
  }
});
process.on('disconnect', () => process.exit(0));
send({ type: 'ready', card: held.agent.card });
