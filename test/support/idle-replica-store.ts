/**
 * A replica store for engine tests that needs no database: other replicas hold nothing, send nothing and take
 * nothing; every renewal answers at once. A test replaces the methods it plays with.
 */
import type { ReplicaStore } from '../../src/store/replica-store.ts';

export function idleReplicaStore(leaseMs: number): ReplicaStore {
  return {
    replicaId: 'live:test',
    leaseMs,
    renew: async () => new Set<string>(),
    releaseAll: async () => {},
    takeOver: async () => [],
    leasedElsewhere: async () => new Set<string>(),
    follow: async () => ({ stop: () => {} }),
    request: async () => ({ kind: 'unanswered' }),
    serve: async () => {},
    runWaiting: async () => {},
    close: async () => {},
  };
}
