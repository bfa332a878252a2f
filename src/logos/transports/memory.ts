/**
 * In-process Logos network: every party gets a node on a shared `MemoryNetwork`. Delivery is asynchronous (as on a
 * real network, a sender never runs the receiver's code on its own stack) and in order per sender. A message sent to
 * an address nobody listens on is dropped, as Waku Relay would drop it.
 */
import { DEFAULT_MAX_ENVELOPE_BYTES } from '../envelope.ts';
import type { LogosTransport, PayloadHandler, Unsubscribe } from '../transport.ts';

export class MemoryNetwork {
  private readonly direct = new Map<string, Set<PayloadHandler>>();
  private readonly topics = new Map<string, Set<PayloadHandler>>();
  /** False makes its nodes behave as on an observable network (tests of the sealing path). */
  readonly privatePublications: boolean;

  constructor(options: { privatePublications?: boolean } = {}) {
    this.privatePublications = options.privatePublications ?? true;
  }

  node(address: string): MemoryTransport {
    return new MemoryTransport(this, address);
  }

  /** @internal */
  listen(table: 'direct' | 'topics', key: string, handler: PayloadHandler): Unsubscribe {
    const map = table === 'direct' ? this.direct : this.topics;
    let handlers = map.get(key);
    if (!handlers) map.set(key, (handlers = new Set()));
    handlers.add(handler);
    return () => {
      handlers.delete(handler);
      if (handlers.size === 0 && map.get(key) === handlers) map.delete(key);
    };
  }

  /** @internal */
  deliver(table: 'direct' | 'topics', key: string, payload: Uint8Array, sender: string): void {
    const handlers = (table === 'direct' ? this.direct : this.topics).get(key);
    if (!handlers || handlers.size === 0) return;
    // Each receiver gets its own copy, so nobody can alter what another party received.
    for (const handler of [...handlers]) {
      const copy = payload.slice();
      queueMicrotask(() => {
        try {
          handler(copy, { sender });
        } catch (error) {
          console.error('memory transport: a receiver threw', error);
        }
      });
    }
  }
}

export class MemoryTransport implements LogosTransport {
  private running = false;
  private readonly subscriptions = new Set<Unsubscribe>();

  private readonly network: MemoryNetwork;
  readonly address: string;
  /** In-process: publications never leave this process (unless the network plays an observable one). */
  readonly privatePublications: boolean;
  readonly maxPayloadBytes = DEFAULT_MAX_ENVELOPE_BYTES;

  constructor(network: MemoryNetwork, address: string) {
    this.network = network;
    this.address = address;
    this.privatePublications = network.privatePublications;
  }

  async start(): Promise<void> {
    this.running = true;
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const unsubscribe of this.subscriptions) unsubscribe();
    this.subscriptions.clear();
  }

  async send(address: string, payload: Uint8Array): Promise<void> {
    this.assertRunning();
    this.network.deliver('direct', address, payload, this.address);
  }

  onDirect(handler: PayloadHandler): Unsubscribe {
    return this.track(this.network.listen('direct', this.address, handler));
  }

  async publish(topic: string, payload: Uint8Array): Promise<void> {
    this.assertRunning();
    this.network.deliver('topics', topic, payload, this.address);
  }

  subscribe(topic: string, handler: PayloadHandler): Unsubscribe {
    return this.track(this.network.listen('topics', topic, handler));
  }

  private track(unsubscribe: Unsubscribe): Unsubscribe {
    const once = () => {
      if (this.subscriptions.delete(once)) unsubscribe();
    };
    this.subscriptions.add(once);
    return once;
  }

  private assertRunning(): void {
    if (!this.running) throw new Error(`memory transport ${this.address} is not started`);
  }
}
