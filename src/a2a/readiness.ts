/**
 * What /readyz answers: ready when the task store answers (within a timeout) and the Logos transport has the peers
 * it waits for (those it dials, its in-process agents), and never while the gateway drains. A load balancer sends
 * calls only to ready replicas. With payments on, the answer also says which rail they use and, on LEZ, which protocol
 * profile the sequencer was found to speak at start (lez/protocol-profile.ts), so an operator sees it at a glance.
 */
import type { TaskStore } from '../store/task-store.ts';
import { withinMs } from '../time-limit.ts';

export type Readiness = ({ ready: true } | { ready: false; reason: string }) & { payments?: PaymentsReadiness };

/** The payment rail as /readyz states it. */
export interface PaymentsReadiness {
  rail: string;
  /** LEZ only: `v0.2` or `lee-v0.3`. */
  profile?: string;
}

export interface ReadinessSources {
  store: TaskStore;
  /**
   * Connected Logos peers; undefined where there are none to wait for (the in-process memory network, a node that
   * dials nobody and has no in-process agents).
   */
  logosPeers: () => number | undefined;
  draining: () => boolean;
  timeoutMs?: number;
  /** The gateway's payment rail, when payments are on. */
  payments?: PaymentsReadiness;
}

export async function readiness(sources: ReadinessSources): Promise<Readiness> {
  const state = await storeAndPeers(sources);
  return sources.payments ? { ...state, payments: sources.payments } : state;
}

async function storeAndPeers(sources: ReadinessSources): Promise<Readiness> {
  if (sources.draining()) return { ready: false, reason: 'The gateway is shutting down.' };
  const peers = sources.logosPeers();
  if (peers === 0) return { ready: false, reason: 'The Logos node has no peers yet; agents cannot be reached.' };
  const timeoutMs = sources.timeoutMs ?? 2_000;
  try {
    // A lookup that finds nothing still goes through the store's whole read path.
    await withinMs(sources.store.get('', ''), timeoutMs, () => new StoreSilent());
  } catch (error) {
    if (error instanceof StoreSilent) {
      return { ready: false, reason: `The task store did not answer within ${timeoutMs} ms.` };
    }
    // The cause may name internals (hosts, schemas): the probe says only which part is down.
    return { ready: false, reason: 'The task store failed to answer.' };
  }
  return { ready: true };
}

class StoreSilent extends Error {}
