/**
 * LEZ account ids (docs/lez.md §3.2, §4.4): 32 bytes, shown as base58.
 *
 * - Public:  SHA-256( "/LEE/v0.3/AccountId/Public/"  zero-padded to 32 ‖ x-only BIP-340 public key (32) )
 * - Private: SHA-256( "/LEE/v0.3/AccountId/Private/" zero-padded to 32 ‖ NPK (32) ‖ identifier as u128 LE )
 *
 * The wallet CLI writes ids as `Public/<base58>` or `Private/<base58>`; the sequencer RPC takes the bare base58.
 */
import { base58 } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { BorshWriter } from './borsh.ts';
import { concatBytes, domainPrefix } from './bytes.ts';

export const ACCOUNT_ID_BYTES = 32;

const PUBLIC_ACCOUNT_ID_PREFIX = domainPrefix('/LEE/v0.3/AccountId/Public/');
const PRIVATE_ACCOUNT_ID_PREFIX = domainPrefix('/LEE/v0.3/AccountId/Private/');

/** The public account id a BIP-340 x-only public key controls. */
export function publicAccountId(xOnlyPublicKey: Uint8Array): Uint8Array {
  if (xOnlyPublicKey.byteLength !== 32) throw new RangeError('x-only public key must be 32 bytes');
  return sha256(concatBytes(PUBLIC_ACCOUNT_ID_PREFIX, xOnlyPublicKey));
}

/** The private account id for a nullifier public key and a u128 identifier (0 for the wallet's own accounts). */
export function privateAccountId(nullifierPublicKey: Uint8Array, identifier: bigint = 0n): Uint8Array {
  if (nullifierPublicKey.byteLength !== 32) throw new RangeError('nullifier public key must be 32 bytes');
  const identifierBytes = new BorshWriter().u128(identifier).finish();
  return sha256(concatBytes(PRIVATE_ACCOUNT_ID_PREFIX, nullifierPublicKey, identifierBytes));
}

export function formatAccountId(id: Uint8Array): string {
  if (id.byteLength !== ACCOUNT_ID_BYTES) throw new RangeError('account id must be 32 bytes');
  return base58.encode(id);
}

export type ParsedAccountId = { ok: true; id: Uint8Array; text: string } | { ok: false; reason: string };

/** A bare base58 account id, as the sequencer RPC and agent cards carry it. Never throws. */
export function parseAccountId(text: string): ParsedAccountId {
  // 32 bytes are 32..44 base58 characters; the bound also keeps the decoder off long garbage.
  if (text.length < 32 || text.length > 44)
    return { ok: false, reason: 'account id must be 32 to 44 base58 characters' };
  let id: Uint8Array;
  try {
    id = base58.decode(text);
  } catch {
    return { ok: false, reason: 'account id is not base58' };
  }
  if (id.byteLength !== ACCOUNT_ID_BYTES)
    return { ok: false, reason: `account id must decode to 32 bytes, got ${id.byteLength}` };
  return { ok: true, id, text };
}

export type AccountVisibility = 'public' | 'private';

/** The wallet CLI's `Public/<base58>` / `Private/<base58>` form. A bare id is taken as public. */
export function parseWalletAccountRef(
  text: string,
): { ok: true; visibility: AccountVisibility; id: Uint8Array; text: string } | { ok: false; reason: string } {
  let visibility: AccountVisibility = 'public';
  let rest = text;
  if (text.startsWith('Public/')) rest = text.slice('Public/'.length);
  else if (text.startsWith('Private/')) {
    visibility = 'private';
    rest = text.slice('Private/'.length);
  }
  const parsed = parseAccountId(rest);
  if (!parsed.ok) return parsed;
  return { ok: true, visibility, id: parsed.id, text: parsed.text };
}

export function formatWalletAccountRef(visibility: AccountVisibility, id: Uint8Array): string {
  return `${visibility === 'public' ? 'Public' : 'Private'}/${formatAccountId(id)}`;
}
