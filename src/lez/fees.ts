/**
 * LEZ transaction fees, as merged on the development branch (docs/lez.md §10; `lee/state_machine/src/fees.rs`,
 * `lez/fee_core`, `lez/sequencer/service/protocol/src/fees.rs`). Only the `lee-v0.3` profile has them.
 *
 * - Every charged public transaction signs a `FeeDeclaration {payer, gas_limit, tip, max_fee}` inside its message
 *   (borsh `Option`: `00`, or `01 ‖ payer[32] ‖ gas_limit u64 ‖ tip u64 ‖ max_fee u128`, all little-endian).
 * - The sequencer holds back `fee_reserve = gas_limit·base_fee_exec + data_bytes·base_fee_stor + tip` from the payer
 *   before execution (data_bytes = the borsh length of the whole transaction), and refuses at once a transaction whose
 *   `max_fee` is below it. After execution it keeps `cycles·base_fee_exec + data_bytes·base_fee_stor + tip`.
 * - `getFeeState` quotes the base fees, and the band the next block's fees lie in.
 * - An admission refusal is a JSON-RPC error with its own code in -31980…-31986, the rendered reason as message, and
 *   the refusal itself (serde's externally tagged enum) as data.
 */
import { z } from 'zod';
import { formatAccountId } from './account-id.ts';
import type { BorshReader, BorshWriter } from './borsh.ts';
import { U128, U64, type JsonValue } from './json.ts';

export interface FeeDeclaration {
  /** The account debited for the fee; it must sign the transaction. */
  payer: Uint8Array;
  gasLimit: bigint;
  tip: bigint;
  /** The most the payer lets the reserve be; a reserve above it is refused (MaxFeeBelowReserve). */
  maxFee: bigint;
}

export function writeFeeDeclaration(w: BorshWriter, fee: FeeDeclaration | null): void {
  w.option(fee ?? undefined, (w, fee) => {
    w.fixedBytes(fee.payer, 32);
    w.u64(fee.gasLimit);
    w.u64(fee.tip);
    w.u128(fee.maxFee);
  });
}

export function readFeeDeclaration(r: BorshReader): FeeDeclaration | null {
  return (
    r.option(
      (r) => ({
        payer: r.fixedBytes(32, 'fee payer'),
        gasLimit: r.u64('gas_limit'),
        tip: r.u64('tip'),
        maxFee: r.u128('max_fee'),
      }),
      'fee',
    ) ?? null
  );
}

/** `getFeeState`'s answer (`FeeStateQuote`). */
export const FeeStateQuote = z
  .object({
    height: U64,
    base_fee_exec: U64,
    base_fee_stor: U64,
    next_base_fee_exec_floor: U64,
    next_base_fee_exec_ceiling: U64,
    next_base_fee_stor_floor: U64,
    next_base_fee_stor_ceiling: U64,
    max_gas_exec: U64,
    max_gas_stor: U64,
  })
  .loose();
export type FeeStateQuote = z.infer<typeof FeeStateQuote>;

/** The protocol's minimum base fees, which genesis starts at (fee_core params). */
export const MIN_BASE_FEE = 8n;
/** Block caps on execution gas and storage bytes (fee_core params). */
export const MAX_GAS_EXEC = 10_000_000n;
export const MAX_GAS_STOR = 1_000_000n;

/**
 * The gas limit a payment declares when none is configured. No sequencer method tells what a native transfer will
 * meter (`getFeeState`'s `max_gas_exec` is the block's cap, and there is no dry run), so it is a documented constant
 * (docs/lez.md §10.5): twice what the CLI devnet meters a transfer at (100), small enough that the reserve it prices
 * stays within the debug genesis accounts' 10,000. The official wallet's 2,000,000 would reserve about 18,000,000 at
 * genesis fees, which those accounts cannot fund. Unused gas is given back at settlement, so a larger limit costs
 * nothing but reserve; an operator whose sequencer meters transfers higher sets `payments.gasLimit`.
 */
export const DEFAULT_GAS_LIMIT = 200;

/**
 * Without an operator cap, the highest base fee (per gas and per byte) a payment agrees to: 8× the protocol minimum,
 * the bound the official wallet signs by default (its `max_fee` is priced at eight times the genesis base fee). The
 * fee a payment declares follows the sequencer's quote, but a market that has run up past this refuses the payment
 * rather than pay it blindly.
 */
export const DEFAULT_MAX_BASE_FEE = 8n * MIN_BASE_FEE;

/** What the sequencer holds back before execution, at base fees `exec` and `stor`. */
export function feeReserve(
  fee: Pick<FeeDeclaration, 'gasLimit' | 'tip'>,
  dataBytes: bigint,
  exec: bigint,
  stor: bigint,
): bigint {
  return fee.gasLimit * exec + dataBytes * stor + fee.tip;
}

/** The admission refusals (`AdmissionRejection`) and their JSON-RPC codes. */
export const ADMISSION_CODES = {
  DataBytesOutOfRange: -31_980,
  GasLimitExceedsMax: -31_981,
  MaxFeeBelowReserve: -31_982,
  UnauthorizedPayer: -31_983,
  PayerCannotFund: -31_984,
  OtherFeeValidity: -31_985,
  MissingFeeDeclaration: -31_986,
} as const;
export type AdmissionRejectionName = keyof typeof ADMISSION_CODES;

export type AdmissionRejection =
  | { kind: 'DataBytesOutOfRange'; dataBytes: bigint; max: bigint }
  | { kind: 'GasLimitExceedsMax'; gasLimit: bigint; max: bigint }
  | { kind: 'MaxFeeBelowReserve'; feeReserve: bigint; maxFee: bigint }
  | { kind: 'UnauthorizedPayer'; payer: Uint8Array }
  | { kind: 'PayerCannotFund'; payer: Uint8Array; balance: bigint; feeReserve: bigint }
  | { kind: 'MissingFeeDeclaration' }
  | { kind: 'OtherFeeValidity'; reason: string };

/** The rejection as the sequencer sends it: code, rendered reason (its `thiserror` text), serde data. */
export function admissionError(rejection: AdmissionRejection): { code: number; message: string; data: JsonValue } {
  const code = ADMISSION_CODES[rejection.kind];
  switch (rejection.kind) {
    case 'DataBytesOutOfRange':
      return {
        code,
        message: `data_bytes ${rejection.dataBytes} outside 1..=${rejection.max}`,
        data: { DataBytesOutOfRange: { data_bytes: rejection.dataBytes, max: rejection.max } },
      };
    case 'GasLimitExceedsMax':
      return {
        code,
        message: `gas_limit ${rejection.gasLimit} above the block cap ${rejection.max}`,
        data: { GasLimitExceedsMax: { gas_limit: rejection.gasLimit, max: rejection.max } },
      };
    case 'MaxFeeBelowReserve':
      return {
        code,
        message: `max_fee ${rejection.maxFee} below the fee reserve ${rejection.feeReserve}`,
        data: { MaxFeeBelowReserve: { fee_reserve: rejection.feeReserve, max_fee: rejection.maxFee } },
      };
    case 'UnauthorizedPayer':
      return {
        code,
        message: `designated payer ${formatAccountId(rejection.payer)} authorized nothing in this transaction`,
        data: { UnauthorizedPayer: { payer: formatAccountId(rejection.payer) } },
      };
    case 'PayerCannotFund':
      return {
        code,
        message: `payer ${formatAccountId(rejection.payer)} holds ${rejection.balance} but the fee reserve is ${rejection.feeReserve}`,
        data: {
          PayerCannotFund: {
            payer: formatAccountId(rejection.payer),
            balance: rejection.balance,
            fee_reserve: rejection.feeReserve,
          },
        },
      };
    case 'MissingFeeDeclaration':
      return { code, message: 'a public transaction must declare a fee', data: 'MissingFeeDeclaration' };
    case 'OtherFeeValidity':
      return {
        code,
        message: `fee-invalid: ${rejection.reason}`,
        data: { OtherFeeValidity: { reason: rejection.reason } },
      };
  }
}

/** The name of the admission refusal a JSON-RPC error code stands for, if it is one. */
export function admissionRejectionOf(code: number): AdmissionRejectionName | undefined {
  return (Object.keys(ADMISSION_CODES) as AdmissionRejectionName[]).find((name) => ADMISSION_CODES[name] === code);
}

/** `MaxFeeBelowReserve`'s reserve, read from the error's data, when the sequencer sent it. */
export function reserveFromRejectionData(data: JsonValue | undefined): bigint | undefined {
  const parsed = z.object({ MaxFeeBelowReserve: z.object({ fee_reserve: U128 }).loose() }).safeParse(data);
  return parsed.success ? parsed.data.MaxFeeBelowReserve.fee_reserve : undefined;
}
