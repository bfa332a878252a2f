/**
 * The two `PaymentRail` implementations, each with a ledger of its own holding the same accounts, for the rail
 * contract suite (test/lez/rail/contract.test.ts): the in-process memory ledger, and the LEZ rail over real HTTP to a
 * devnet sequencer on 127.0.0.1 producing a block every 100 ms.
 */
import { startDevnet } from '../../src/devnet/devnet.ts';
import { DEVNET_GENESIS } from '../../src/devnet/genesis.ts';
import { hexToBytes } from '../../src/lez/bytes.ts';
import { signingKeyFromSecretKey, type SigningKey } from '../../src/lez/keys.ts';
import { LezRail } from '../../src/lez/rail/lez-rail.ts';
import { MemoryLedger } from '../../src/lez/rail/memory-ledger.ts';
import { MemoryRail } from '../../src/lez/rail/memory-rail.ts';
import type { PaymentRail } from '../../src/lez/rail/payment-rail.ts';
import { SequencerClient } from '../../src/lez/sequencer-client.ts';

/** What the gateway's account holds at the start, on either ledger. */
export const GATEWAY_FUNDS = 10_000n;

export interface RailWorld {
  /** The gateway's account, holding GATEWAY_FUNDS. */
  gateway: string;
  /** The agent's account, able to receive (initialised). */
  agent: string;
  /** An account nobody initialised: the ledger drops transfers to it. */
  stranger: string;
  /** A new rail paying from the gateway's account, as a gateway (re)started on this ledger makes it. */
  gatewayRail(): PaymentRail;
  /** A new rail paying from the agent's account: the agent's, for refunds. */
  agentRail(): PaymentRail;
  /** An account's balance as the ledger or chain holds it, read apart from any rail. */
  balanceOf(account: string): bigint;
  close(): Promise<void>;
}

export interface RailImplementation {
  name: 'memory' | 'lez';
  open(): Promise<RailWorld>;
}

const memory: RailImplementation = {
  name: 'memory',
  async open() {
    const ledger = new MemoryLedger();
    ledger.fund('gateway', GATEWAY_FUNDS);
    ledger.initialise('agent');
    return {
      gateway: 'gateway',
      agent: 'agent',
      stranger: 'stranger',
      gatewayRail: () => new MemoryRail({ ledger, payer: 'gateway' }),
      agentRail: () => new MemoryRail({ ledger, payer: 'agent' }),
      balanceOf: (account) => ledger.balanceOf(account),
      close: async () => undefined,
    };
  },
};

const key = (secretKeyHex: string) => signingKeyFromSecretKey(hexToBytes(secretKeyHex, 32));
/** Genesis account 0 holds 10 000, account 1 is initialised. */
const GATEWAY = key(DEVNET_GENESIS[0].secretKeyHex);
const AGENT = key(DEVNET_GENESIS[1].secretKeyHex);
const STRANGER = key('aa'.repeat(32));

const lez: RailImplementation = {
  name: 'lez',
  async open() {
    const devnet = await startDevnet({ blockIntervalMs: 100 });
    const rails: LezRail[] = [];
    const rail = (payer: SigningKey) => {
      // Generous timeouts: a loaded machine must not turn slowness into a lost answer.
      const client = new SequencerClient({ url: devnet.url, timeoutMs: 10_000 });
      const created = new LezRail(
        { client, payer },
        { signingMode: 'prehash-v0.3', network: 'devnet', pollIntervalMs: 100, resubmitAfterMs: 3_000 },
      );
      rails.push(created);
      return created;
    };
    return {
      gateway: GATEWAY.account,
      agent: AGENT.account,
      stranger: STRANGER.account,
      gatewayRail: () => rail(GATEWAY),
      agentRail: () => rail(AGENT),
      balanceOf: (account) => devnet.balance(account),
      async close() {
        for (const created of rails) created.close();
        await devnet.stop();
      },
    };
  },
};

export const RAIL_IMPLEMENTATIONS: readonly RailImplementation[] = [memory, lez];
