/**
 * How a gateway says a peer binding's agent was verified: its `/agents` entry (`verified`, `cardScheme`) and its
 * served card's Logos extension (`peerCardSignature`).
 */
import { LOGOS_AGENT_EXTENSION } from '../../src/a2a/card-projection.ts';

export async function verifiedMark(gatewayUrl: string, id: string) {
  const index = (await (await fetch(`${gatewayUrl}/agents`)).json()) as {
    agents: { id: string; verified: boolean; cardScheme: string | null }[];
  };
  const listed = index.agents.find((agent) => agent.id === id);
  const card = await (await fetch(`${gatewayUrl}/agents/${id}/.well-known/agent-card.json`)).json();
  const params = card.capabilities.extensions.find((e: { uri: string }) => e.uri === LOGOS_AGENT_EXTENSION).params;
  return {
    listed: listed && { verified: listed.verified, cardScheme: listed.cardScheme },
    signature: params.peerCardSignature as Record<string, unknown> | undefined,
  };
}
