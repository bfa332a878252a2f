/**
 * The Logos agent card as an agent publishes it (seed format: A2A fields plus `x-lez-price` and `agentInterfaces`).
 * The gateway projects it to a pure A2A v1.0 card in src/a2a/card-projection.ts.
 */
import { z } from 'zod';
import { canonicalWakuAddress, isWakuAddress, WAKU_ADDRESS_PREFIX } from './transports/waku/identity.ts';

/** LEZ amounts are u128 base units, always written as decimal strings. */
export const LezAmount = z.string().regex(/^\d{1,39}$/, 'a LEZ amount is a decimal string of base units');

export const AGENT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export const LogosSkill = z.object({
  id: z.string().min(1).max(128),
  name: z.string().min(1).max(256),
  description: z.string().max(4096),
  tags: z.array(z.string()).default([]),
  examples: z.array(z.string()).optional(),
  inputModes: z.array(z.string()).optional(),
  outputModes: z.array(z.string()).optional(),
  'x-lez-price': LezAmount.optional(),
});

export const LogosInterface = z.object({
  type: z.literal('logos-messaging'),
  version: z.string(),
  /** The transport address the gateway sends task envelopes to. */
  address: z.string().min(1),
  /**
   * The network of the `networks` setting the agent lives on (a peer binding's agent, docs/bindings/networks.md);
   * absent: the gateway's own.
   */
  network: z.string().optional(),
});

export const CardExtension = z.object({
  uri: z.string().min(1),
  description: z.string().optional(),
  required: z.boolean().default(false),
  params: z.record(z.string(), z.unknown()).optional(),
});

export const LogosAgentCard = z.object({
  /** Stable id: the gateway serves the agent at /agents/{id}/. */
  id: z.string().regex(AGENT_ID_PATTERN, 'agent id: lowercase letters, digits, - and _, at most 63'),
  name: z.string().min(1).max(256),
  description: z.string().max(8192),
  version: z.string().min(1).max(64),
  provider: z.object({ organization: z.string(), url: z.string().url() }).optional(),
  documentationUrl: z.string().url().optional(),
  iconUrl: z.string().url().optional(),
  capabilities: z.object({ streaming: z.boolean().default(true) }).default({ streaming: true }),
  defaultInputModes: z.array(z.string()).min(1).default(['text/plain', 'application/json']),
  defaultOutputModes: z.array(z.string()).min(1).default(['text/plain', 'application/json']),
  skills: z.array(LogosSkill).min(1),
  /** Default price per task for skills without their own. */
  'x-lez-price': LezAmount.optional(),
  /** When this card was issued (signed): a gateway never replaces a card with an older one replayed later. */
  'x-issued-at': z.iso.datetime().optional(),
  /**
   * Changes each time the agent process starts: a new value tells gateways it lost whatever it had in memory, so
   * they ask again about the tasks it had (the runtime stamps it; signed with the rest of the card).
   */
  'x-instance': z.string().min(1).max(64).optional(),
  /**
   * Cards whose address is a waku address: the address's own signature accepting `x-lez-identity.account_id` (see
   * transports/waku/identity.ts), so that nobody can publish a card that routes tasks to someone else's address.
   */
  'x-logos-address-proof': z
    .string()
    .regex(/^[0-9a-f]{128}$/)
    .optional(),
  /**
   * The agent's LEZ identity: its public account, where task payments go. Required when any price is above 0.
   * `private`: the keys of the private account it also takes shielded payments into (docs/payments.md §10), as the
   * official wallet's `--to-npk` and `--to-vpk` take them.
   */
  'x-lez-identity': z
    .object({
      account_id: z.string().min(32).max(64),
      private: z
        .object({
          npk: z.string().regex(/^[0-9a-f]{64}$/),
          vpk: z.string().regex(/^0[23][0-9a-f]{64}$/),
        })
        .optional(),
    })
    .optional(),
  agentInterfaces: z.array(LogosInterface).min(1),
  /** A2A extensions the agent supports; `required` ones must be activated by the caller. */
  extensions: z.array(CardExtension).default([]),
});

export type LogosSkill = z.infer<typeof LogosSkill>;
export type LogosAgentCard = z.infer<typeof LogosAgentCard>;
export type LogosAgentCardInput = z.input<typeof LogosAgentCard>;

/**
 * The address tasks for the card's agent go to. A waku address comes in its canonical spelling (the uncompressed
 * key, lowercase), whichever of its forms the card carries, so that it compares equal to the senders the transport
 * reports.
 */
export function logosAddressOf(card: LogosAgentCard): string {
  // The schema guarantees at least one interface.
  const address = card.agentInterfaces[0]!.address;
  return isWakuAddress(address) ? canonicalWakuAddress(address) : address;
}

/** A public key in hex, SEC 1 (uncompressed or compressed), perhaps after `0x`: how the seed writes an address. */
const BARE_KEY = /^(?:0x)?(04[0-9a-fA-F]{128}|0[23][0-9a-fA-F]{64})$/;

/**
 * The card with the address tasks go to spelt as the transport takes it, or undefined when the transport cannot
 * call it at all: such a card would be listed and then fail every call. A bare public key (the seed's spelling) is
 * read as the `waku:` address of that key wherever the transport reaches those; any other spelling is kept when the
 * transport reaches it as written (`reaches`, network.ts).
 */
export function callableCard(card: LogosAgentCard, reaches: (address: string) => boolean): LogosAgentCard | undefined {
  const [first, ...others] = card.agentInterfaces;
  const key = BARE_KEY.exec(first!.address)?.[1];
  const waku = key === undefined ? undefined : `${WAKU_ADDRESS_PREFIX}${key.toLowerCase()}`;
  if (waku !== undefined && isWakuAddress(waku) && reaches(waku)) {
    return { ...card, agentInterfaces: [{ ...first!, address: canonicalWakuAddress(waku) }, ...others] };
  }
  return reaches(first!.address) ? card : undefined;
}

export function skillPrice(card: LogosAgentCard, skillId: string): string {
  const skill = card.skills.find((s) => s.id === skillId);
  return skill?.['x-lez-price'] ?? card['x-lez-price'] ?? '0';
}

/** Whether the card sets a price anywhere, on the card or on a skill (a price of "0" still counts as set). */
export function isPriced(card: LogosAgentCard): boolean {
  return card['x-lez-price'] !== undefined || card.skills.some((s) => s['x-lez-price'] !== undefined);
}
