/**
 * The `published` setting's publications as a gateway runs them (src/publish/): each one's Logos node and card key,
 * where it keeps its tasks' HTTP tasks, and for a priced one how it takes payments, as `logos-a2a publish --price`
 * does: a LEZ rail on its sequencer paying refunds from its card key's account, its money state in a SQLite file of
 * its own beside the gateway's database (`published-ID-payments.db`), so that what it holds or owes outlives a crash;
 * with `privateMnemonicFile`, shielded payments into the private account of the operator's wallet too.
 */
import { join } from 'node:path';
import { signingKeyFromSecretKey } from '../lez/keys.ts';
import { paymentKeys, type PrivateReceiveKeys } from '../lez/private/receive.ts';
import { readMnemonicFile, walletPrivateNode } from '../lez/private/wallet-node.ts';
import { SequencerClient } from '../lez/sequencer-client.ts';
import type { LogosNetwork } from '../logos/network.ts';
import { loadOrCreateKey } from '../logos/secret-key-file.ts';
import type { PublishOptions } from '../publish/publish.ts';
import { SqliteAgentPaymentStore } from '../store/sqlite/agent-payment-store.ts';
import { SqlitePublishedTaskStore } from '../store/sqlite/published-task-store.ts';
import { ConfigError, type GatewayConfig } from './config.ts';
import { agentPayments, detectLezProtocol, lezRail, type LezRailProtocol } from './payment-wiring.ts';
import type { SigningMode } from '../lez/signing.ts';

type PublishedEntry = GatewayConfig['published'][number];

export interface PublishedParts {
  /** PublishedAgents' `node`: what the publication of `entry` runs on, opened when it is published. */
  node: (id: string, entry: PublishedEntry) => ReturnType<PublishOptions['node']>;
  /** Closes the stores and rails opened for them: after the agents have stopped. */
  close(): void;
}

/** A priced publication's sequencer: the entry's own, else the gateway's (config.ts refuses one with neither). */
const sequencerOf = (entry: PublishedEntry, config: GatewayConfig) =>
  entry.sequencerUrl ?? config.payments.sequencerUrl!;
const isPriced = (entry: PublishedEntry) => Object.keys(entry.prices ?? {}).length > 0;

/**
 * The parts of the publications of `config.published`. The sequencers of priced ones are probed first (signing mode
 * and protocol profile, as the gateway's own payments are; the `payments` settings apply on the gateway's sequencer),
 * so that a sequencer that cannot be used stops the start with a ConfigError before anything is published.
 * `folder`: where the files go (beside the SQLite database; .data/ with PostgreSQL); none with an in-memory database,
 * whose publications keep their money state in memory. Tasks are kept with a SQLite database only (`keepsTasks`).
 */
export async function publishedParts(
  config: GatewayConfig,
  network: LogosNetwork,
  folder: string | undefined,
  keepsTasks: boolean,
  log: (line: string) => void,
): Promise<PublishedParts> {
  const protocols = new Map<string, { signingMode: SigningMode; protocol: LezRailProtocol }>();
  for (const entry of config.published.filter(isPriced)) {
    const url = sequencerOf(entry, config);
    if (protocols.has(url)) continue;
    // The fee settings are the operator's caps on any sequencer; a pinned mode and profile are the gateway's own's.
    const { maxFee, gasLimit } = config.payments;
    const settings = url === config.payments.sequencerUrl ? config.payments : { maxFee, gasLimit };
    const detected = await detectLezProtocol(url, settings, log);
    // Refunds on a sequencer with fees pay fees: without a cap, no rail could be made for the publication.
    if (detected.protocol.profile === 'lee-v0.3' && maxFee === undefined)
      throw new ConfigError(
        `published: the sequencer at ${url} charges fees (lee-v0.3): set payments.maxFee, the most a refund pays in fees.`,
      );
    protocols.set(url, detected);
  }
  // A card key file that cannot be read stops the start, rather than each attempt to publish its agent.
  const cardKeys = new Map<string, Uint8Array>();
  for (const { cardKeyFile } of config.published) {
    if (!cardKeyFile || cardKeys.has(cardKeyFile)) continue;
    try {
      cardKeys.set(cardKeyFile, loadOrCreateKey(cardKeyFile));
    } catch (error) {
      throw new ConfigError(`published: cardKeyFile ${cardKeyFile}: ${(error as Error).message}`);
    }
  }
  // The same for a private account's mnemonic; and private payments are read on v0.2 only (docs/payments.md §10).
  const privateKeys = new Map<PublishedEntry, PrivateReceiveKeys>();
  config.published.forEach((entry, index) => {
    if (!entry.privateMnemonicFile) return;
    const setting = `published[${index}]`;
    const read = readMnemonicFile(entry.privateMnemonicFile);
    if (!read.ok)
      throw new ConfigError(
        `${setting}.privateMnemonicFile: cannot read ${entry.privateMnemonicFile} (${read.reason})`,
      );
    const node = walletPrivateNode(read.phrase, entry.privatePath);
    if (!node.ok && node.problem === 'mnemonic')
      throw new ConfigError(`${setting}.privateMnemonicFile: not a valid mnemonic: ${node.reason}`);
    if (!node.ok) throw new ConfigError(`${setting}.privatePath: a wallet path such as /0 or /1: ${node.reason}`);
    const { profile } = protocols.get(sequencerOf(entry, config))!.protocol;
    if (profile !== 'v0.2')
      throw new ConfigError(
        `${setting}.privateMnemonicFile: private payments are read on the v0.2 profile only; the sequencer at ${sequencerOf(entry, config)} speaks ${profile}`,
      );
    privateKeys.set(entry, node.keys);
    const { npk, vpk } = paymentKeys(node.keys);
    log(`published[${index}]: paid privately too, to the wallet's node ${node.path}: --to-npk ${npk} --to-vpk ${vpk}`);
  });
  const opened: { close(): void }[] = [];
  const open = <T extends { close(): void }>(resource: T) => {
    opened.push(resource);
    return resource;
  };
  return {
    node(id, entry) {
      const tasks =
        folder && keepsTasks ? open(new SqlitePublishedTaskStore(join(folder, `published-${id}-tasks.db`))) : undefined;
      const cardKey = entry.cardKeyFile ? cardKeys.get(entry.cardKeyFile)! : network.agentCardKey(`published-${id}`);
      let payments;
      if (isPriced(entry)) {
        const url = sequencerOf(entry, config);
        const { signingMode, protocol } = protocols.get(url)!;
        const rail = open(lezRail(url, signingKeyFromSecretKey(cardKey), signingMode, undefined, protocol));
        const store = open(
          new SqliteAgentPaymentStore(folder ? join(folder, `published-${id}-payments.db`) : ':memory:'),
        );
        const keys = privateKeys.get(entry);
        payments = agentPayments(rail, store, keys && { keys, sequencer: new SequencerClient({ url }) });
      }
      return {
        transport: network.agentNode(`published-${id}`),
        cardKey,
        ...(tasks ? { tasks } : {}),
        ...(payments ? { payments } : {}),
      };
    },
    close: () => opened.splice(0).forEach((resource) => resource.close()),
  };
}
