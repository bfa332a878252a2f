/**
 * What a private account leaves on chain (docs/lez.md §11.3; `nssa_core` commitment.rs, nullifier.rs, account.rs):
 *
 * ```
 * commitment      = SHA-256(pad32("/LEE/v0.3/Commitment/") ‖ account_id ‖ program_owner [u32; 8] ‖ balance u128
 *                           ‖ nonce u128 ‖ SHA-256(data))
 * nullifier, init = SHA-256(pad32("/LEE/v0.3/Nullifier/Initialize/") ‖ account_id)
 * nullifier, upd. = SHA-256(pad32("/LEE/v0.3/Nullifier/Update/") ‖ commitment ‖ nsk)
 * nonce, init     = u128le(SHA-256(account_id ‖ 0x00×32)[..16])
 * ```
 *
 * A new private account is created with the initialisation nullifier (paired with the hash of the dummy commitment)
 * and the initial nonce; every later update spends the account's last commitment with an update nullifier.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { BorshWriter } from '../borsh.ts';
import { concatBytes, domainPrefix } from '../bytes.ts';
import type { LezAccount } from '../sequencer-client.ts';

const COMMITMENT_PREFIX = domainPrefix('/LEE/v0.3/Commitment/');
const INIT_NULLIFIER_PREFIX = domainPrefix('/LEE/v0.3/Nullifier/Initialize/');
const UPDATE_NULLIFIER_PREFIX = domainPrefix('/LEE/v0.3/Nullifier/Update/');

export function accountCommitment(accountId: Uint8Array, account: LezAccount): Uint8Array {
  const w = new BorshWriter().raw(COMMITMENT_PREFIX).fixedBytes(accountId, 32);
  for (const word of account.programOwner) w.u32(word);
  w.u128(account.balance).u128(account.nonce).raw(sha256(account.data));
  return sha256(w.finish());
}

/** The commitment of the default account at the all-zero id: the first leaf of every commitment tree. */
export const DUMMY_COMMITMENT = accountCommitment(new Uint8Array(32), {
  programOwner: [0, 0, 0, 0, 0, 0, 0, 0],
  balance: 0n,
  data: new Uint8Array(0),
  nonce: 0n,
});

/** The commitment-set digest a new account's nullifier is paired with. */
export const DUMMY_COMMITMENT_HASH = sha256(DUMMY_COMMITMENT);

export function initializationNullifier(accountId: Uint8Array): Uint8Array {
  return sha256(concatBytes(INIT_NULLIFIER_PREFIX, accountId));
}

export function updateNullifier(commitment: Uint8Array, nullifierSecretKey: Uint8Array): Uint8Array {
  return sha256(concatBytes(UPDATE_NULLIFIER_PREFIX, commitment, nullifierSecretKey));
}

function u128le(bytes: Uint8Array): bigint {
  let value = 0n;
  for (let i = 15; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]!);
  return value;
}

/** The nonce a private account starts with: what tells a fresh account from an updated one. */
export function initialPrivateNonce(accountId: Uint8Array): bigint {
  return u128le(sha256(concatBytes(accountId, new Uint8Array(32))));
}
