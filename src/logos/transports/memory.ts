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
  /** The topic key, a copy of the subscriber's (it may reuse its bytes); undefined for none. */
  readonly key: Uint8Array | undefined;
}

/**
 * Listeners by address or topic. An array rather than a Set: a task's status topic gets one subscriber, and a
 * one-item array costs a fraction of a Set to make, to look through and to collect.
 */
type Listeners = Map<string, Listener[]>;

/** What `send` and `publish` answer once the payload is on its way: one settled promise for all, not one each. */
const DELIVERED: Promise<void> = Promise.resolve();

export class MemoryNetwork {
  private readonly direct: Listeners = new Map();
  private readonly topics: Listeners = new Map();

  node(address: string): MemoryTransport {
    return new MemoryTransport(this, address);
  }

  /**
   * @internal Adds a listener; its unsubscribe is kept in `owner` until called, so that the node can end all its
   * subscriptions when it stops (one function for both: a task's status topic is subscribed to for each task).
   */
  listen(
    table: 'direct' | 'topics',
    name: string,
    handler: PayloadHandler,
    key?: Uint8Array,
    owner?: Set<Unsubscribe>,
  ): Unsubscribe {
    const map = table === 'direct' ? this.direct : this.topics;
    const listener: Listener = { handler, key: key && Uint8Array.from(key) };
    const listeners = map.get(name);
    if (listeners) listeners.push(listener);
    else map.set(name, [listener]);
    const unsubscribe = () => {
      if (owner && !owner.delete(unsubscribe)) return;
      const current = map.get(name);
      const at = current ? current.indexOf(listener) : -1;
      if (at < 0) return;
      if (current!.length === 1) map.delete(name);
      else current!.splice(at, 1);
    };
    owner?.add(unsubscribe);
    return unsubscribe;
  }

  /** @internal */
  deliver(
    table: 'direct' | 'topics',
    name: string,
    payload: Uint8Array,
    sender: string | undefined,
    key?: Uint8Array,
  ): void {
    const listeners = (table === 'direct' ? this.direct : this.topics).get(name);
    if (!listeners) return;
    // Each receiver gets its own copy, so nobody can alter what another party received (or what the sender does
    // with its bytes afterwards); a copy of bytes this process vouched for keeps the mark (vouched-bytes.ts).
    // No handler runs before the loop ends, so the array cannot change under it.
    // Each handler runs as a reaction to a settled promise rather than through queueMicrotask: the same microtask
    // queue and the sender's async context all the same, without the AsyncResource and bound function that Node's
    // queueMicrotask makes for each call.
    for (const { handler, key: listenerKey } of listeners) {
      if (!sameKey(listenerKey, key)) continue; // it would not decrypt
      const copy = copyPayload(payload);
      void DELIVERED.then(() => {
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
    return this.network.listen('direct', this.address, handler, undefined, this.subscriptions);
  }

  publish(topic: string, payload: Uint8Array, options: TopicOptions = {}): Promise<void> {
    const refused = this.refusal(payload);
    if (refused) return Promise.reject(refused);
    const key = keyOf(options);
    this.network.deliver('topics', topic, payload, key ? this.address : undefined, key);
    return DELIVERED;
  }

  subscribe(topic: string, handler: PayloadHandler, options: TopicOptions = {}): Unsubscribe {
    return this.network.listen('topics', topic, handler, keyOf(options), this.subscriptions);
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

/** The topic's key; an empty one is none. */
function keyOf(options: TopicOptions): Uint8Array | undefined {
  return options.key?.length ? options.key : undefined;
}

/** Both absent, or the same bytes. */
function sameKey(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (!a || !b) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
