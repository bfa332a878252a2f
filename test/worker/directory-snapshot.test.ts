/**
 * The directory as the Worker's front keeps it between requests: a snapshot that differs from the last only in
 * when agents were last heard refreshes the directory it built, same entries, no signature checked again.
 */
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { LogosAgentCard } from '../../src/logos/card.ts';
import { signLogosCard } from '../../src/logos/card-signature.ts';
import {
  directoryFromSnapshot,
  refreshLastSeen,
  snapshotCardsKey,
  type DirectorySnapshotEntry,
} from '../../src/worker/directory-snapshot.ts';

const OFFLINE_AFTER_MS = 60_000;
const CHANGED_AT = new Date(Date.now() - 3_600_000).toISOString();

const signedCard = (id: string, version = '1') =>
  signLogosCard(
    LogosAgentCard.parse({
      id,
      name: `Agent ${id}`,
      description: 'announced',
      version,
      skills: [{ id: 'echo', name: 'Echo', description: '' }],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: `agent:${id}` }],
    }),
    randomBytes(32),
  ) as unknown as Record<string, unknown>;

const entry = (card: Record<string, unknown>, lastSeenMsAgo: number): DirectorySnapshotEntry => ({
  signedCard: card,
  updatedAt: CHANGED_AT,
  lastSeenAt: new Date(Date.now() - lastSeenMsAgo).toISOString(),
});

it('brings last-seen times up to date in place, and keys the directory on the cards alone', () => {
  const card = signedCard('echo');
  const earlier = [entry(card, 2 * OFFLINE_AFTER_MS)];
  const directory = directoryFromSnapshot(earlier, OFFLINE_AFTER_MS);
  const built = directory.get('echo');
  expect(built?.verified).toBeDefined();
  expect(directory.isOnline('echo')).toBe(false);

  const now = [entry(card, 1_000)];
  expect(snapshotCardsKey(now)).toBe(snapshotCardsKey(earlier));
  refreshLastSeen(directory, now);
  expect(directory.isOnline('echo')).toBe(true);
  expect(directory.get('echo')).toBe(built);

  // A changed card is another directory.
  expect(snapshotCardsKey([entry(signedCard('echo', '2'), 1_000)])).not.toBe(snapshotCardsKey(now));
});
