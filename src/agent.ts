/**
 * `logos-a2a/agent`: what it takes to write a Logos agent that gateways find and serve. The package's public surface
 * for agent authors; everything else in the package is internal and may change between versions.
 *
 * - `LogosAgent`: the runtime (a card and skill handlers; it announces the card on the discovery topic by default);
 * - `WakuTransport`: a node on the Logos Messaging (Waku relay) network, the one gateways listen on;
 * - `WakuLightTransport`: a Waku light node instead, sending with LightPush and receiving with Filter through service
 *   nodes (a gateway's node, or a fleet's), for an agent that runs no relay node;
 * - `loadOrCreateKey`: a key kept in a file (the agent's Logos identity, and the LEZ key its card is signed with);
 * - `signLogosCard` / `verifyLogosCard`: signed cards by hand (the runtime signs the card itself when given `cardKey`);
 * - `LogosCaller`: hiring other Logos agents from a skill (agent-runtime/caller.ts), `HirePayments` to pay priced ones.
 */
export {
  Completion,
  DEFAULT_ANNOUNCE_EVERY_MS,
  LogosAgent,
  SkillRejected,
  type AgentPayments,
  type CompletionFields,
  type FollowUp,
  type LogosAgentOptions,
  type SkillContext,
  type SkillHandler,
} from './logos/agent-runtime.ts';
export {
  HirePayments,
  LogosCaller,
  type HireInput,
  type HireOptions,
  type HireOutcome,
  type HirePayment,
  type HirePaymentsOptions,
  type HireRefusal,
  type HireTarget,
  type HireUpdate,
  type LogosCallerOptions,
} from './logos/agent-runtime/caller.ts';
export type { LogosAgentCard, LogosAgentCardInput, LogosSkill } from './logos/card.ts';
export {
  signLogosCard,
  verifyLogosCard,
  type LogosCardSignature,
  type LogosCardVerification,
  type SignedLogosCard,
  type VerifiedLogosCard,
} from './logos/card-signature.ts';
export { DEFAULT_DISCOVERY_TOPIC } from './logos/discovery.ts';
export type { WireArtifact, WireMessage } from './logos/envelope.ts';
export { loadOrCreateKey } from './logos/secret-key-file.ts';
export type { Delivery, LogosTransport, PayloadHandler, Unsubscribe } from './logos/transport.ts';
export { WakuTransport, type WakuTransportOptions } from './logos/transports/waku.ts';
export { WakuLightTransport, type WakuLightTransportOptions } from './logos/transports/waku-light.ts';
