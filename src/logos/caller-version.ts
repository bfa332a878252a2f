/**
 * The A2A protocol version the caller spoke, as the gateway marks it on the caller's message it forwards to an agent
 * (`message.metadata`, docs/binding.md §7): set for a v0.3 caller only, so a message without it came from a v1.0
 * caller. For agents that answer the two generations differently, such as the conformance agent, whose v0.3 suite
 * expects other timing than the v1.0 one.
 */
export const CALLER_VERSION_METADATA = 'logos-a2a.callerVersion';

export type CallerVersion = '0.3' | '1.0';

/** The version the caller of `message` (the forwarded message, v1.0 JSON) spoke. */
export function callerVersionOf(message: Record<string, unknown> | undefined): CallerVersion {
  const metadata = message?.metadata;
  const marked =
    typeof metadata === 'object' && metadata !== null
      ? (metadata as Record<string, unknown>)[CALLER_VERSION_METADATA]
      : undefined;
  return marked === '0.3' ? '0.3' : '1.0';
}
