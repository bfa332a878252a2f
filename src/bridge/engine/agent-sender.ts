/**
 * What the engine sends a task's agent: canonical envelopes of the task's conversation (envelope.ts), put in the
 * agent's words by its wire binding on the way out. A message that would not fit one envelope is refused first.
 */
import { uuidV7 } from '../../uuid.ts';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import {
  BINDING_VERSION,
  encodeEnvelope,
  type DistributiveOmit,
  type GatewayEnvelopeInput,
} from '../../logos/envelope.ts';
import type { LogosTransport } from '../../logos/transport.ts';
import { contextFrom, inSpan, SpanKind } from '../../observability/tracing.ts';
import type { LiveTask } from '../live-task.ts';

/** An envelope's body: what the engine says, without the fields every envelope of the task carries. */
export type EnvelopeBody = DistributiveOmit<
  GatewayEnvelopeInput,
  'v' | 'id' | 'task_id' | 'from' | 'to' | 'status_key'
>;

export class AgentSender {
  readonly #transport: Pick<LogosTransport, 'address' | 'send'>;
  readonly maxEnvelopeBytes: number;

  constructor(transport: Pick<LogosTransport, 'address' | 'send'>, maxEnvelopeBytes: number) {
    this.#transport = transport;
    this.maxEnvelopeBytes = maxEnvelopeBytes;
  }

  /** The gateway's own address: where agents send what they send it. */
  get address(): string {
    return this.#transport.address;
  }

  /** An envelope of the task's conversation, under a fresh message id (receivers drop ids they have seen). */
  envelope(live: LiveTask, body: EnvelopeBody): GatewayEnvelopeInput {
    return {
      ...body,
      v: BINDING_VERSION,
      id: uuidV7(),
      task_id: live.task.id,
      from: this.#transport.address,
      to: live.agentAddress,
      status_key: live.request.status_key,
    } as GatewayEnvelopeInput;
  }

  send(live: LiveTask, body: EnvelopeBody): Promise<void> {
    return this.sendEncoded(live, encodeEnvelope(this.envelope(live, body)));
  }

  /**
   * An envelope encoded already (its size checked, or sent before), through the agent's wire binding: 1:1 on the
   * gateway's transport, or published on its network's node. Not async: the span's promise is the answer as it is
   * (an async frame around it would add two promises to every send); a throw still comes as a rejection.
   */
  sendEncoded(live: LiveTask, payload: Uint8Array): Promise<void> {
    try {
      const sent = live.wireBinding.outgoing(payload, live.request);
      if (sent === undefined) return Promise.resolve();
      const peer = live.wireBinding.peer;
      return inSpan('logos send', { kind: SpanKind.PRODUCER, parent: contextFrom(live.request) }, () =>
        peer ? peer.node.publish(peer.requestTopic(live.request), sent) : this.#transport.send(live.agentAddress, sent),
      );
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /** A message that would not fit one envelope is refused before anything is recorded or sent. */
  assertFits(size: number): void {
    if (size > this.maxEnvelopeBytes) {
      throw new RequestMalformedError(
        `The message makes a ${size}-byte Logos envelope; the binding carries at most ${this.maxEnvelopeBytes}. Send less, or files by URL.`,
      );
    }
  }
}
