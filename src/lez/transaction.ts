/**
 * LEZ public transactions, byte-exact (docs/lez.md §3; `nssa/src/public_transaction/*`, `common` on `main`).
 *
 * ```
 * Message (v0.2)     = program_id [u32; 8] ‖ account_ids Vec<[u8; 32]> ‖ nonces Vec<u128> ‖ instruction_data Vec<u32>
 * Message (lee-v0.3) = program_id [u32; 8] ‖ account_ids Vec<[u8; 32]> ‖ nonces Vec<u128> ‖ instruction_data Vec<u8>
 *                      ‖ fee Option<FeeDeclaration>                  (the fees revision; docs/lez.md §10, fees.ts)
 * WitnessSet        = Vec<(signature [u8; 64], x-only public key [u8; 32])>
 * PublicTransaction = Message ‖ WitnessSet
 * NSSATransaction   = u8 tag (0 Public, 1 PrivacyPreserving, 2 ProgramDeployment) ‖ variant
 * ```
 *
 * `sendTransaction` takes standard base64 (padded) of borsh(NSSATransaction); the sequencer's tx hash is
 * SHA-256 of borsh(PublicTransaction), without the enum tag. The privacy-preserving and deployment variants are
 * carried as opaque bodies: this gateway neither builds nor inspects them (docs/lez.md §4.5: they need the Risc0 prover).
 */
import { base64 } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { BorshDecodeError, BorshReader, BorshWriter } from './borsh.ts';
import { toHex } from './bytes.ts';
import { readFeeDeclaration, writeFeeDeclaration, type FeeDeclaration } from './fees.ts';
import { isValidXOnlyPublicKey } from './public-key.ts';

/** A program id: the RISC Zero image id of the program's ELF, as 8 u32 words (getProgramIds' `[u32×8]`). */
export type ProgramId = readonly number[];

export interface PublicMessage {
  programId: ProgramId;
  /** 32-byte account ids, in the order the program sees them (for a transfer: [from, to]). */
  accountIds: readonly Uint8Array[];
  /** One nonce per signer, in witness order: each signer's current on-chain nonce. */
  nonces: readonly bigint[];
  /**
   * The instruction: RISC Zero serde u32 words in the v0.2 layout, borsh bytes (one element a byte) in the lee-v0.3
   * layout (see `nativeTransferInstruction`).
   */
  instructionData: readonly number[];
  /**
   * Only in the lee-v0.3 layout, and what tells the layouts apart: the signed fee declaration, or null for a
   * fee-exempt (system) message. Absent in the v0.2 layout, which has no such field.
   */
  fee?: FeeDeclaration | null;
}

/** The two public message layouts: today's testnet (v0.2.x, `main` up to the fees) and the fees revision. */
export const MESSAGE_LAYOUTS = ['v0.2', 'lee-v0.3'] as const;
export type MessageLayout = (typeof MESSAGE_LAYOUTS)[number];

export function layoutOf(message: PublicMessage): MessageLayout {
  return message.fee === undefined ? 'v0.2' : 'lee-v0.3';
}

export interface Witness {
  /** 64-byte BIP-340 signature. */
  signature: Uint8Array;
  /** 32-byte x-only public key of the signer. */
  publicKey: Uint8Array;
}

export interface PublicTransaction {
  message: PublicMessage;
  witnesses: readonly Witness[];
}

export type NssaTransaction =
  | { kind: 'public'; transaction: PublicTransaction }
  | { kind: 'privacy-preserving'; body: Uint8Array }
  | { kind: 'program-deployment'; body: Uint8Array };

const NSSA_TAGS = { public: 0, 'privacy-preserving': 1, 'program-deployment': 2 } as const;

export type DecodeResult<T> = { ok: true; value: T } | { ok: false; reason: string };

const U32_MAX = 0xffff_ffff;

function isU32(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= U32_MAX;
}

/** Validates 8 u32 words as a program id; anything else is a programming or config error. */
export function assertProgramId(words: readonly number[]): ProgramId {
  if (words.length !== 8 || !words.every(isU32)) throw new RangeError('a program id is 8 u32 words');
  return words;
}

export function programIdEquals(a: ProgramId, b: ProgramId): boolean {
  return a.length === b.length && a.every((word, i) => word === b[i]);
}

// ---- encoding -------------------------------------------------------------------------------------------------

function writeMessage(w: BorshWriter, message: PublicMessage): void {
  for (const word of assertProgramId(message.programId)) w.u32(word);
  w.vec(message.accountIds, (w, id) => w.fixedBytes(id, 32));
  w.vec(message.nonces, (w, nonce) => w.u128(nonce));
  if (layoutOf(message) === 'v0.2') {
    w.vec(message.instructionData, (w, word) => w.u32(word));
    return;
  }
  if (!message.instructionData.every((b) => Number.isInteger(b) && b >= 0 && b <= 0xff))
    throw new RangeError('lee-v0.3 instruction data is bytes');
  w.bytes(Uint8Array.from(message.instructionData));
  writeFeeDeclaration(w, message.fee ?? null);
}

/** Writes a witness set (shared with the privacy-preserving transaction). */
export function writeWitnesses(w: BorshWriter, witnesses: readonly Witness[]): void {
  w.vec(witnesses, (w, witness) => {
    w.fixedBytes(witness.signature, 64);
    w.fixedBytes(witness.publicKey, 32);
  });
}

/** borsh(Message): what gets signed (raw, or under the v0.3 prefix hash; see signing.ts). */
export function encodePublicMessage(message: PublicMessage): Uint8Array {
  const w = new BorshWriter();
  writeMessage(w, message);
  return w.finish();
}

export function encodeWitnessSet(witnesses: readonly Witness[]): Uint8Array {
  const w = new BorshWriter();
  writeWitnesses(w, witnesses);
  return w.finish();
}

export function encodePublicTransaction(tx: PublicTransaction): Uint8Array {
  const w = new BorshWriter();
  writeMessage(w, tx.message);
  writeWitnesses(w, tx.witnesses);
  return w.finish();
}

export function encodeNssaTransaction(tx: NssaTransaction): Uint8Array {
  const w = new BorshWriter().enumTag(NSSA_TAGS[tx.kind]);
  if (tx.kind === 'public') {
    writeMessage(w, tx.transaction.message);
    writeWitnesses(w, tx.transaction.witnesses);
  } else {
    w.raw(tx.body);
  }
  return w.finish();
}

/** The `tx` param of `sendTransaction`: standard, padded base64 of borsh(NSSATransaction). */
export function nssaTransactionToBase64(tx: NssaTransaction): string {
  return base64.encode(encodeNssaTransaction(tx));
}

/** The tx hash the sequencer returns and indexes by: SHA-256(borsh(PublicTransaction)). */
export function publicTransactionHash(tx: PublicTransaction): Uint8Array {
  return sha256(encodePublicTransaction(tx));
}

/** The same hash as the lowercase hex the RPC uses (`sendTransaction`'s result, `getTransaction`'s param). */
export function publicTransactionHashHex(tx: PublicTransaction): string {
  return toHex(publicTransactionHash(tx));
}

// ---- decoding -------------------------------------------------------------------------------------------------

function readMessage(r: BorshReader, layout: MessageLayout): PublicMessage {
  const programId: number[] = [];
  for (let i = 0; i < 8; i++) programId.push(r.u32('program_id'));
  const accountIds = r.vec(32, (r) => r.fixedBytes(32, 'account id'), 'account_ids');
  const nonces = r.vec(16, (r) => r.u128('nonce'), 'nonces');
  if (layout === 'v0.2') {
    const instructionData = r.vec(4, (r) => r.u32('instruction word'), 'instruction_data');
    return { programId, accountIds, nonces, instructionData };
  }
  const instructionData = [...r.bytes('instruction_data')];
  return { programId, accountIds, nonces, instructionData, fee: readFeeDeclaration(r) };
}

/** Reads a witness set (the public and the privacy-preserving transactions share it). */
export function readWitnesses(r: BorshReader): Witness[] {
  return r.vec(
    96,
    (r, i) => {
      const signature = r.fixedBytes(64, 'signature');
      const publicKey = r.fixedBytes(32, 'public key');
      // As LEZ's PublicKey deserializer: a key that is not a curve point makes the whole transaction invalid.
      if (!isValidXOnlyPublicKey(publicKey))
        throw new BorshDecodeError(`witness ${i}: public key is not a secp256k1 x coordinate`);
      return { signature, publicKey };
    },
    'witness set',
  );
}

function decodeWith<T>(bytes: Uint8Array, read: (r: BorshReader) => T, what: string): DecodeResult<T> {
  try {
    const r = new BorshReader(bytes);
    const value = read(r);
    r.end(what);
    return { ok: true, value };
  } catch (error) {
    if (error instanceof BorshDecodeError) return { ok: false, reason: `${what}: ${error.message}` };
    throw error;
  }
}

export function decodePublicMessage(bytes: Uint8Array, layout: MessageLayout = 'v0.2'): DecodeResult<PublicMessage> {
  return decodeWith(bytes, (r) => readMessage(r, layout), 'public message');
}

export function decodePublicTransaction(
  bytes: Uint8Array,
  layout: MessageLayout = 'v0.2',
): DecodeResult<PublicTransaction> {
  return decodeWith(
    bytes,
    (r) => ({ message: readMessage(r, layout), witnesses: readWitnesses(r) }),
    'public transaction',
  );
}

export function decodeNssaTransaction(
  bytes: Uint8Array,
  layout: MessageLayout = 'v0.2',
): DecodeResult<NssaTransaction> {
  return decodeWith(
    bytes,
    (r): NssaTransaction => {
      const tag = r.enumTag('NSSATransaction tag');
      switch (tag) {
        case 0:
          return { kind: 'public', transaction: { message: readMessage(r, layout), witnesses: readWitnesses(r) } };
        case 1:
          return { kind: 'privacy-preserving', body: r.rest() };
        case 2:
          return { kind: 'program-deployment', body: r.rest() };
        default:
          throw new BorshDecodeError(`unknown NSSATransaction variant ${tag}`);
      }
    },
    'NSSATransaction',
  );
}

/** The inverse of `nssaTransactionToBase64`, for what clients send and what `getTransaction` returns. */
export function decodeBase64NssaTransaction(
  text: string,
  layout: MessageLayout = 'v0.2',
): DecodeResult<NssaTransaction> {
  let bytes: Uint8Array;
  try {
    bytes = base64.decode(text);
  } catch {
    return { ok: false, reason: 'NSSATransaction: not standard padded base64' };
  }
  return decodeNssaTransaction(bytes, layout);
}

// ---- the native token transfer instruction --------------------------------------------------------------------

/**
 * The `authenticated_transfer` instruction: one u128 amount, serialized with `risc0_zkvm::serde::to_vec`, which
 * writes a u128 as its 16 little-endian bytes split into 4 little-endian u32 words (risc0 v3.0.5). In borsh that
 * is `04 00 00 00 ‖ amount.to_le_bytes()`. Amount 0 with a single account initialises that account.
 */
export function nativeTransferInstruction(amount: bigint, layout: MessageLayout = 'v0.2'): number[] {
  if (amount < 0n || amount >= 1n << 128n) throw new RangeError(`not a u128 amount: ${amount}`);
  if (layout === 'lee-v0.3') return [...new BorshWriter().enumTag(LEE_TRANSFER_TAG).u128(amount).finish()];
  const words: number[] = [];
  for (let i = 0n; i < 4n; i++) words.push(Number((amount >> (32n * i)) & 0xffff_ffffn));
  return words;
}

/**
 * In the lee-v0.3 layout the instruction is borsh of the program's `Instruction` enum, `Transfer { amount: u128 }`
 * first (tag 0), `Initialize` second (tag 1): `00 ‖ amount.to_le_bytes()`, 17 bytes.
 */
const LEE_TRANSFER_TAG = 0;

/** The amount of a native transfer instruction, or undefined when it is not exactly one u128 transfer. */
export function nativeTransferAmount(
  instructionData: readonly number[],
  layout: MessageLayout = 'v0.2',
): bigint | undefined {
  if (layout === 'lee-v0.3') {
    if (instructionData.length !== 17 || instructionData[0] !== LEE_TRANSFER_TAG) return undefined;
    return instructionData.slice(1).reduce((sum, byte, i) => sum | (BigInt(byte) << (8n * BigInt(i))), 0n);
  }
  if (instructionData.length !== 4 || !instructionData.every(isU32)) return undefined;
  return instructionData.reduce((sum, word, i) => sum | (BigInt(word) << (32n * BigInt(i))), 0n);
}
