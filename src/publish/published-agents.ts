/**
 * The HTTP agents a gateway publishes (its `published` setting), each a Logos agent of its own. One that cannot be
 * published at start (down, or its card refused) does not hold the gateway up: it is tried again every `retryMs`
 * until it is, and the failure is logged each time, naming the URL.
 */
import type { LogosAgent } from '../logos/agent-runtime.ts';
import type { FaceNetwork } from '../logos/bindings/agent-faces.ts';
import { bridgeHttpAgent, type PublishedAgent, type PublishOptions } from './publish.ts';

/** One entry of the `published` setting: what PublishOptions takes from configuration. */
export type PublishedAgentSettings = Omit<
  PublishOptions,
  'node' | 'discoveryTopic' | 'announceEveryMs' | 'peerNetworks'
>;

export interface PublishedAgentsOptions<Entry extends PublishedAgentSettings> {
  /** What PublishOptions' `node` answers for the agent of `entry`: its node, keys and, when priced, its payments. */
  node: (id: string, entry: Entry) => ReturnType<PublishOptions['node']>;
  discoveryTopic?: string;
  /** The peer networks every publication is announced on too (PublishOptions' `peerNetworks`). */
  peerNetworks?: readonly FaceNetwork[];
  log: (message: string) => void;
  /** How long after a failed publication it is tried again. Default 30 s. */
  retryMs?: number;
}

export class PublishedAgents<Entry extends PublishedAgentSettings = PublishedAgentSettings> {
  private readonly published: PublishedAgent[] = [];
  private readonly retries = new Set<NodeJS.Timeout>();
  private stopped = false;
  private readonly entries: readonly Entry[];
  private readonly options: PublishedAgentsOptions<Entry>;

  constructor(entries: readonly Entry[], options: PublishedAgentsOptions<Entry>) {
    this.entries = entries;
    this.options = options;
  }

  /** The agents published so far, started. */
  get agents(): LogosAgent[] {
    return this.published.map((published) => published.agent);
  }

  /**
   * Asks the published agent `agentId`, before a priced task of it is paid for, whether it takes the task now
   * (its limits, http-relay.ts): the reason it does not, or undefined (also for an agent not published here).
   */
  async admitAhead(agentId: string, taskId: string): Promise<string | undefined> {
    return this.published.find((published) => published.agent.card.id === agentId)?.admitAhead(taskId);
  }

  /** Publishes every entry once; those that fail are tried again in the background. */
  async start(): Promise<void> {
    await Promise.all(this.entries.map((entry) => this.publish(entry)));
  }

  private async publish(entry: Entry): Promise<void> {
    const outcome = await bridgeHttpAgent({
      ...entry,
      node: (id) => this.options.node(id, entry),
      ...(this.options.discoveryTopic ? { discoveryTopic: this.options.discoveryTopic } : {}),
      ...(this.options.peerNetworks
        ? { peerNetworks: { networks: this.options.peerNetworks, log: this.options.log } }
        : {}),
    });
    if (this.stopped) return;
    if (!outcome.ok) {
      const retryMs = this.options.retryMs ?? 30_000;
      this.options.log(`published agent ${entry.url}: ${outcome.message}; trying again in ${retryMs / 1000} s`);
      const retry = setTimeout(() => {
        this.retries.delete(retry);
        void this.publish(entry);
      }, retryMs);
      retry.unref();
      this.retries.add(retry);
      return;
    }
    await outcome.published.agent.start();
    this.published.push(outcome.published);
    if (this.stopped) await outcome.published.stop();
  }

  /** Stops announcing every published agent (gateways list them offline once their cards are no longer heard). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const retry of this.retries) clearTimeout(retry);
    this.retries.clear();
    await Promise.all(this.published.splice(0).map((published) => published.stop()));
  }
}
