/**
 * In-process Logos network: every party gets a node on a shared `MemoryNetwork`. Delivery is asynchronous (as on a
 * real network, a sender never runs the receiver's code on its own stack) and in order per sender. A message sent to
 * an address nobody listens on is dropped, as Waku Relay would drop it. It keeps the rules of the real wire that
 * receivers rely on: a keyed publication reaches only subscribers with the same key, and names its publisher; a
 * plain one names nobody.
 */
import { DEFAULT_MAX_ENVELOPE_BYTES } from '../envelope.ts';
import { copyPayload } from '../vouched-bytes.ts';
import type { LogosTransport, PayloadHandler, TopicOptions, Unsubscribe } from '../transport.ts';

interface Listener {
  readonly handler: PayloadHandler;
  /** The topic key as hex, '' for none. */
  readonly key: string;
}

export class MemoryNetwork {
  private readonly direct = new Map<string, Set<Listener>>();
  private readonly topics = new Map<string, Set<Listener>>();

  node(address: string): MemoryTransport {
    return new MemoryTransport(this, address);
  }

  /** @internal */
  listen(table: 'direct' | 'topics', name: string, handler: PayloadHandler, key = ''): Unsubscribe {
    const map = table === 'direct' ? this.direct : this.topics;
    let listeners = map.get(name);
    if (!listeners) map.set(name, (listeners = new Set()));
    const listener = { handler, key };
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && map.get(name) === listeners) map.delete(name);
    };
  }

  /** @internal */
  deliver(table: 'direct' | 'topics', name: string, payload: Uint8Array, sender: string | undefined, key = ''): void {
    const listeners = (table === 'direct' ? this.direct : this.topics).get(name);
    if (!listeners || listeners.size === 0) return;
    // Each receiver gets its own copy, so nobody can alter what another party received (or what the sender does
    // with its bytes afterwards); a copy of bytes this process vouched for keeps the mark (vouched-bytes.ts).
    // No handler runs before the loop ends, so the set cannot change under it.
    for (const { handler, key: listenerKey } of listeners) {
      if (listenerKey !== key) continue; // it would not decrypt
      const copy = copyPayload(payload);
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

/** What `send` and `publish` answer once the payload is on its way: one settled promise for all, not one each. */
const DELIVERED: Promise<void> = Promise.resolve();

export class MemoryTransport implements LogosTransport {
  private running = false;
  private readonly subscriptions = new Set<Unsubscribe>();

  private readonly network: MemoryNetwork;
  readonly address: string;
  readonly maxPayloadBytes = DEFAULT_MAX_ENVELOPE_BYTES;

  constructor(network: MemoryNetwork, address: string) {
    this.network = network;
    this.address = address;
  }

  async start(): Promise<void> {
    this.running = true;
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const unsubscribe of this.subscriptions) unsubscribe();
    this.subscriptions.clear();
  }

  send(address: string, payload: Uint8Array): Promise<void> {
    const refused = this.refusal(payload);
    if (refused) return Promise.reject(refused);
    this.network.deliver('direct', address, payload, this.address);
    return DELIVERED;
  }

  onDirect(handler: PayloadHandler): Unsubscribe {
    return this.track(this.network.listen('direct', this.address, handler));
  }

  publish(topic: string, payload: Uint8Array, options: TopicOptions = {}): Promise<void> {
    const refused = this.refusal(payload);
    if (refused) return Promise.reject(refused);
    const key = keyHex(options);
    this.network.deliver('topics', topic, payload, key ? this.address : undefined, key);
    return DELIVERED;
  }

  subscribe(topic: string, handler: PayloadHandler, options: TopicOptions = {}): Unsubscribe {
    return this.track(this.network.listen('topics', topic, handler, keyHex(options)));
  }

  private track(unsubscribe: Unsubscribe): Unsubscribe {
    const once = () => {
      if (this.subscriptions.delete(once)) unsubscribe();
    };
    this.subscriptions.add(once);
    return once;
  }

  /** As a real network would refuse it: a party tested in process must not get away with what Waku drops. */
  private refusal(payload: Uint8Array): Error | undefined {
    if (!this.running) return new Error(`memory transport ${this.address} is not started`);
    if (payload.length > this.maxPayloadBytes) {
      return new RangeError(`memory transport: payload of ${payload.length} bytes exceeds ${this.maxPayloadBytes}`);
    }
    return undefined;
  }
}

function keyHex(options: TopicOptions): string {
  return options.key ? Buffer.from(options.key).toString('hex') : '';
}
