/**
 * An agent on our runtime as the peer bindings see it (issue #27): for each configured network of a binding with an
 * agent side, a face (common/agent-face.ts) that announces the agent there in the binding's format and carries the
 * binding's requests to it: logos-agent, lp-0008 and pilot, free skills only.
 */
import type { LogosAgentCard } from '../card.ts';
import type { AgentSideNode, FaceOptions, PeerFace } from './common/agent-face.ts';
import type { PeerBindingName } from './common/peer-card.ts';
import { logosAgentFace } from './logos-agent/agent-side.ts';
import { lp0008Face } from './lp-0008/agent-side.ts';
import { pilotFace } from './pilot/agent-side.ts';
import { seedFace, type SeedFaceOptions } from './seed-agent-side.ts';

/** The bindings an agent on our runtime can be announced and called on. */
export const AGENT_SIDES: Partial<
  Record<PeerBindingName, (card: LogosAgentCard, options: FaceOptions) => PeerFace | undefined>
> = {
  'logos-agent': logosAgentFace,
  'lp-0008': lp0008Face,
  pilot: pilotFace,
};

/** A configured network as a face needs it (config.ts `networks`, its node from peer-networks.ts). */
export interface FaceNetwork {
  readonly name: string;
  /** The peer binding the network is for; none for a network of our own binding's. */
  readonly binding?: PeerBindingName | undefined;
  readonly discoveryTopic?: string | undefined;
  readonly node: AgentSideNode;
}

/**
 * The runtime's `peerFaces` for an agent signed with `cardKey`, on every network of a binding with an agent side.
 * A network whose binding has none, one configured so that the agent cannot be announced on it (lp-0008 without a
 * board), or an agent with no free skill is skipped, and `log` says why.
 */
export function peerFacesOn(
  networks: readonly FaceNetwork[],
  cardKey: Uint8Array,
  log: (line: string) => void,
): (card: LogosAgentCard) => PeerFace[] {
  return (card) =>
    networks.flatMap((network) => {
      if (!network.binding) return [];
      const skipped = (why: string) => {
        log(`agent ${card.id}: not announced on network ${network.name}: ${why}`);
        return [];
      };
      const side = AGENT_SIDES[network.binding];
      if (!side) return skipped(`the ${network.binding} binding has no agent side here`);
      const options = { network: network.name, node: network.node, discoveryTopic: network.discoveryTopic, cardKey };
      let face: PeerFace | undefined;
      try {
        face = side(card, options);
      } catch (error) {
        return skipped((error as Error).message);
      }
      if (!face) return skipped(`the ${network.binding} binding carries only free skills, and it has none`);
      if (face.keyApart) {
        const { kid, key } = face.keyApart;
        log(`agent ${card.id}: its ${network.binding} card on network ${network.name} is signed by ${kid}, key ${key}`);
      }
      return [face];
    });
}

/**
 * `faces` (peerFacesOn's, if any) and, with `seed`, the seed face on the agent's own node (seed-agent-side.ts), for
 * an agent that speaks the seed's dialect too (`--seed-dialect`). An agent with no free skill gets no seed face.
 */
export function withSeedFace(
  faces: ((card: LogosAgentCard) => PeerFace[]) | undefined,
  seed: SeedFaceOptions | undefined,
): (card: LogosAgentCard) => PeerFace[] {
  return (card) => {
    const face = seed && seedFace(card, seed);
    return [...(faces?.(card) ?? []), ...(face ? [face] : [])];
  };
}
