/**
 * The agent directory as the DirectoryObject hands it to the rest of the Worker: each agent's card as it signed it,
 * with when it changed and when it was last heard. Receivers check every signature again: what they serve is
 * what the agent signed, whoever carried it.
 */
import { AgentDirectory } from '../logos/directory.ts';
import { verifyLogosCard } from '../logos/card-signature.ts';

export interface DirectorySnapshotEntry {
  signedCard: Record<string, unknown>;
  /** ISO 8601. */
  updatedAt: string;
  lastSeenAt: string;
}

export function directorySnapshot(directory: AgentDirectory): DirectorySnapshotEntry[] {
  return directory.all().flatMap((entry) => {
    const lastSeen = directory.lastSeen(entry.id);
    if (!entry.verified || !lastSeen) return [];
    return [
      {
        signedCard: entry.verified.signedCard,
        updatedAt: entry.updatedAt.toISOString(),
        lastSeenAt: lastSeen.toISOString(),
      },
    ];
  });
}

export function directoryFromSnapshot(entries: DirectorySnapshotEntry[], offlineAfterMs: number): AgentDirectory {
  const directory = new AgentDirectory({ offlineAfterMs });
  for (const entry of entries) {
    const verified = verifyLogosCard(entry.signedCard);
    if (!verified.ok) continue;
    // Registered when it changed (its ETag and Last-Modified), then heard again when it was last seen.
    directory.register(verified.card, new Date(entry.updatedAt), verified);
    directory.register(verified.card, new Date(entry.lastSeenAt), verified);
  }
  return directory;
}

/**
 * Brings a directory built from an earlier snapshot up to this one when only the last-seen times differ (agents
 * announce every half minute), without checking any signature again.
 */
export function refreshLastSeen(directory: AgentDirectory, entries: DirectorySnapshotEntry[]): void {
  for (const entry of entries) {
    const id = entry.signedCard.id;
    const known = typeof id === 'string' ? directory.get(id) : undefined;
    if (known?.verified) directory.register(known.card, new Date(entry.lastSeenAt), known.verified);
  }
}

/** What a directory built from `entries` depends on besides the last-seen times (see `refreshLastSeen`). */
export function snapshotCardsKey(entries: DirectorySnapshotEntry[]): string {
  return JSON.stringify(entries.map(({ signedCard, updatedAt }) => [signedCard, updatedAt]));
}
