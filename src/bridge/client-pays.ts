/**
 * The client-pays extension: instead of the gateway paying the agent from its wallet, the caller pays the agent on
 * LEZ itself, shaped like a2a-x402 (input-required with the requirement in the status message metadata, the
 * transaction back on the same task). The gateway verifies it on the sequencer before the task goes on.
 */
import { z } from 'zod';
import { LowercaseTxHash } from '../lez/tx-hash.ts';
import type { WireMessage } from '../logos/envelope.ts';
export const CLIENT_PAYS_EXTENSION = 'urn:logos-a2a:ext:lez-client-pays:v1';

/** The metadata key under which the client answers with its transaction: `{txHash, from}`. */
export const CLIENT_PAYMENT_PAYLOAD = 'lez.payment.payload';

/** What the client answers under `CLIENT_PAYMENT_PAYLOAD`: its transaction, and the account it paid from. */
const ClientPayment = z.object({ txHash: LowercaseTxHash, from: z.string().min(1).max(128) });
export type ClientPayment = z.infer<typeof ClientPayment>;

/** The client's payment from its follow-up message, if it carries one. */
export function clientPaymentOf(metadata: Record<string, unknown> | undefined): ClientPayment | undefined {
  const parsed = ClientPayment.safeParse(metadata?.[CLIENT_PAYMENT_PAYLOAD]);
  return parsed.success ? { txHash: parsed.data.txHash, from: parsed.data.from } : undefined;
}

/** What the client is asked to pay for a task: the price, to the agent's account, on a rail. */
export interface ClientPaymentTerms {
  taskId: string;
  rail: string;
  payTo: string;
  /** LEZ base units, decimal. */
  amount: string;
}

/** The status message asking the client to pay: the requirement travels in its metadata, a2a-x402 style. */
export function clientPaymentRequest(terms: ClientPaymentTerms, problem?: string): Exclude<WireMessage, string> {
  const { taskId, rail, payTo, amount } = terms;
  return {
    parts: [
      {
        text: `${problem ? `${problem} ` : ''}This task costs ${amount} LEZ: pay ${payTo} and answer on this task with the transaction (metadata "${CLIENT_PAYMENT_PAYLOAD}": {"txHash", "from"}).`,
      },
    ],
    metadata: {
      'lez.payment.status': problem ? 'payment-rejected' : 'payment-required',
      'lez.payment.required': { rail, payTo, amount, taskId, extension: CLIENT_PAYS_EXTENSION },
    },
  };
}
