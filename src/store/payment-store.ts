/**
 * The money side of durable state: one payment record per paid task, written before anything is submitted, and the
 * approvals an operator gives or refuses for tasks above the spending limits.
 */
export type PaymentStatus =
  /** Recorded, signed perhaps, not yet known to be on chain: resumed after a restart. */
  | 'pending'
  | 'paid'
  /** The transfer failed; nothing was charged. */
  | 'failed'
  | 'refunded'
  /** The task ended after payment and no valid refund was seen. */
  | 'refund-missing'
  /**
   * The task ended after payment to an agent whose binding has no refunds (docs/bindings/): none is looked for, and
   * the money stays spent.
   */
  | 'no-refund';

/**
 * The gateway's record of paying for one task. (The rail's own record of a signed transfer, `RailPaymentRecord` in
 * lez/rail/payment-record.ts, is kept inside it as `railState`.)
 */
export interface TaskPaymentRecord {
  taskId: string;
  agentId: string;
  /** u128 base units, decimal string. */
  amount: string;
  payee: string;
  /** The rail paid on: `lez`, or `memory` in tests. */
  rail: string;
  /** The rail's own durable state for this payment (signed bytes, hash, nonce…), opaque here. */
  railState: unknown;
  status: PaymentStatus;
  txHash?: string;
  refundTxHash?: string;
  /** The API key the task was sent with. */
  caller?: string;
  /** Who paid, when not the gateway's wallet (the client, through the client-pays extension): refunds go there. */
  payer?: string;
  /** ISO 8601. */
  createdAt: string;
  updatedAt: string;
}

export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'expired';

export interface ApprovalRecord {
  taskId: string;
  agentId: string;
  amount: string;
  reason: string;
  status: ApprovalStatus;
  createdAt: string;
  decidedAt?: string;
}

/** The fields of a payment that change after it is recorded. */
export type PaymentChange = Partial<Pick<TaskPaymentRecord, 'status' | 'railState' | 'txHash' | 'refundTxHash'>>;

export interface PaymentStore {
  /** Creates the record; false when the task already has one (a retry: the existing record stands). */
  create(record: TaskPaymentRecord): Promise<boolean>;
  get(taskId: string): Promise<TaskPaymentRecord | undefined>;
  /**
   * Sets the fields `change` names and only those, in one statement: another writer's change of other fields at the
   * same moment stays. A field named with the value undefined is cleared.
   */
  update(taskId: string, change: PaymentChange): Promise<void>;
  /** Payments still pending (resumed at start). */
  pending(): Promise<TaskPaymentRecord[]>;
  /** Payments whose refund was not seen when their task ended (looked for again, as it may land later). */
  refundsMissing(): Promise<TaskPaymentRecord[]>;
  /** Sum of what was paid or is pending since `sinceIso`: what the per-period limit counts. */
  spentSince(sinceIso: string): Promise<bigint>;
  /** What tasks sent with this API key have spent (paid, pending, or never refunded). */
  spentByCaller(caller: string): Promise<bigint>;
  /** Whether a transaction hash was already accepted for any payment or refund (reuse is refused). */
  txHashUsed(txHash: string): Promise<boolean>;

  /**
   * Runs `work` while no other work given here runs, in this process or in another gateway on this database: the
   * spending gate's sums and the record of the payment it lets through, so that replicas charging at once cannot
   * together pass a limit. Turns are taken in the order asked for.
   */
  exclusively<T>(work: () => Promise<T>): Promise<T>;

  createApproval(record: ApprovalRecord): Promise<void>;
  getApproval(taskId: string): Promise<ApprovalRecord | undefined>;
  decideApproval(taskId: string, status: Exclude<ApprovalStatus, 'pending'>): Promise<ApprovalRecord | undefined>;
  approvals(status?: ApprovalStatus): Promise<ApprovalRecord[]>;
  close(): Promise<void>;
}
