/**
 * What the gateway keeps for the peer bindings that hold state of their own, in its data folder: pilot's identity
 * (its keys and sender name, identity.ts) and first-contact pins (pins.ts). Each is made on first use, so a gateway
 * that serves no pilot agent writes no pilot file. Without a data folder (an in-memory database) both last one run.
 */
import { join } from 'node:path';
import type { PilotSide } from './pilot/binding.ts';
import { freshPilotIdentity, loadOrCreatePilotIdentity } from './pilot/identity.ts';
import { PilotPins } from './pilot/pins.ts';
import type { PeerContext } from './peer-bindings.ts';

/** `maxPins`: pilot identities pinned at most (the directory's bound on agents, `maxAgents`). */
export function peerContext(dataFolder: string | undefined, maxPins?: number): PeerContext {
  let pilot: PilotSide | undefined;
  return {
    pilot: () =>
      (pilot ??= {
        identity: dataFolder ? loadOrCreatePilotIdentity(dataFolder) : freshPilotIdentity(),
        pins: new PilotPins(dataFolder && join(dataFolder, 'pilot-pins.json'), maxPins),
      }),
  };
}
