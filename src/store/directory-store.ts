/**
 * The agent directory on disk: each agent's card (as JSON: what a card is, and whether a stored one still parses, is
 * the directory's to say), when it last changed and when the agent was last heard.
 */

export interface StoredAgent {
  id: string;
  cardJson: string;
  /** ISO 8601. */
  updatedAt: string;
  lastSeenAt: string;
}

export interface DirectoryStore {
  save(agent: StoredAgent): Promise<void>;
  touch(id: string, lastSeenAt: string): Promise<void>;
  /**
   * Deletes the agent's row if it was last heard before `unheardSince` (ISO 8601): a replica that heard it since keeps
   * it, whichever forgets first.
   */
  forget(id: string, unheardSince: string): Promise<void>;
  all(): Promise<StoredAgent[]>;
  close(): Promise<void>;
}
