/**
 * The agents this gateway serves, by id: registered at start-up (in-process agents) or heard on the discovery
 * topic (discovery.ts). Re-registering an unchanged card keeps its entry, so its ETag and Last-Modified stay put.
 */
import { logosAddressOf, type LogosAgentCard } from './card.ts';

export interface DirectoryEntry {
  readonly id: string;
  readonly card: LogosAgentCard;
  readonly address: string;
  /** When this card was first registered or last changed: the card's Last-Modified. */
  readonly updatedAt: Date;
}

export class AgentDirectory {
  private readonly entries = new Map<string, DirectoryEntry>();
  private readonly cardJson = new Map<string, string>();
  private readonly seen = new Map<string, Date>();

  /**
   * Adds or refreshes an agent; returns its entry (the existing one when the card did not change), or undefined
   * when another address already holds the id: the first agent to claim an id keeps it.
   */
  register(card: LogosAgentCard, at = new Date()): DirectoryEntry | undefined {
    const json = JSON.stringify(card);
    const existing = this.entries.get(card.id);
    if (existing && existing.address !== logosAddressOf(card)) return undefined;
    this.seen.set(card.id, at);
    if (existing && this.cardJson.get(card.id) === json) return existing;
    const entry: DirectoryEntry = { id: card.id, card, address: logosAddressOf(card), updatedAt: at };
    this.entries.set(card.id, entry);
    this.cardJson.set(card.id, json);
    return entry;
  }

  get(id: string): DirectoryEntry | undefined {
    return this.entries.get(id);
  }

  /** When the agent's card was last heard or registered. */
  lastSeen(id: string): Date | undefined {
    return this.seen.get(id);
  }

  all(): DirectoryEntry[] {
    return [...this.entries.values()];
  }
}
