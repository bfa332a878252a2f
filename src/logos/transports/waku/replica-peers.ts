/**
 * Replicas that find each other by DNS: every address a name resolves to (a Kubernetes headless Service lists every
 * pod's) runs a relay node on one port, and each is dialled and kept, so that the replicas form one mesh. An agent
 * reaches one replica through the Service in front of them; what it publishes reaches the others over this mesh,
 * and what they send reaches it the same way. Addresses that join are dialled, those that leave are let go, and this
 * node's own addresses are skipped.
 */
import { resolve4 } from 'node:dns/promises';
import { networkInterfaces } from 'node:os';
import type { StaticPeerDialer } from './static-peers.ts';

export interface ReplicaPeersOptions {
  /** The name (`host`) and the port every replica's node listens on. */
  host: string;
  port: number;
  /** How often the name is resolved again. */
  everyMs: number;
  /** The name's IPv4 addresses (default: DNS). */
  resolve?: (host: string) => Promise<string[]>;
  /** This host's addresses, which are never dialled (default: those of its network interfaces). */
  ownAddresses?: () => Set<string>;
  log?: (message: string) => void;
}

export class ReplicaPeers {
  readonly #dialer: StaticPeerDialer;
  readonly #options: ReplicaPeersOptions;
  #known = new Set<string>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(dialer: StaticPeerDialer, options: ReplicaPeersOptions) {
    this.#dialer = dialer;
    this.#options = options;
  }

  start(): void {
    void this.#refresh();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
  }

  async #refresh(): Promise<void> {
    const { host, port, everyMs } = this.#options;
    try {
      const own = (this.#options.ownAddresses ?? interfaceAddresses)();
      const found = new Set(
        (await (this.#options.resolve ?? resolve4)(host))
          .filter((ip) => !own.has(ip))
          .map((ip) => `/ip4/${ip}/tcp/${port}`),
      );
      if (this.#stopped) return;
      for (const address of found) if (!this.#known.has(address)) this.#dialer.add(address);
      for (const address of this.#known) if (!found.has(address)) this.#dialer.remove(address);
      this.#known = found;
    } catch (error) {
      // A name with no addresses yet (the first pod of a Service), or DNS away: the next round tries again.
      this.#options.log?.(`replica peers: ${host} did not resolve (${(error as Error).message})`);
    }
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#refresh(), everyMs);
    this.#timer.unref?.();
  }
}

function interfaceAddresses(): Set<string> {
  return new Set(
    Object.values(networkInterfaces())
      .flat()
      .map((info) => info?.address)
      .filter((address): address is string => address !== undefined),
  );
}
