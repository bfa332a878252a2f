/**
 * The agents this gateway serves, by id. Issue-level discovery (cards heard on the discovery topic) will feed the
 * same directory; today agents are registered at start-up.
 */
import { logosAddressOf, type LogosAgentCard } from '../logos/card.ts';

export interface DirectoryEntry {
  readonly id: string;
  readonly card: LogosAgentCard;
  readonly address: string;
  /** When this card was last registered or changed: the card's Last-Modified. */
  readonly updatedAt: Date;
}

export class AgentDirectory {
  private readonly entries = new Map<string, DirectoryEntry>();

  register(card: LogosAgentCard, updatedAt = new Date()): DirectoryEntry {
    const entry: DirectoryEntry = { id: card.id, card, address: logosAddressOf(card), updatedAt };
    this.entries.set(card.id, entry);
    return entry;
  }

  get(id: string): DirectoryEntry | undefined {
    return this.entries.get(id);
  }

  all(): DirectoryEntry[] {
    return [...this.entries.values()];
  }
}
