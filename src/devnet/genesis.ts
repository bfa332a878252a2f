/**
 * The devnet's funded accounts at block 1.
 *
 * By default these are the two public accounts of LEZ's debug configs (docs/lez.md §2: `configs/debug`, keys from
 * `wallet/configs/debug/wallet_config.json`), so a wallet set up for a debug sequencer works here too. Their
 * secret keys are public test keys, exported for tests and the demo; never fund them anywhere real.
 *
 * Like `V03State::new_with_genesis_accounts`, genesis accounts are owned by `authenticated_transfer`, i.e.
 * already initialised, so anyone can pay them. Extra accounts can be added uninitialised to test that rule.
 */
import { z } from 'zod';
import { parseAccountId } from '../lez/account-id.ts';
import { U128, U128_MAX, U128Decimal } from '../lez/json.ts';

export interface DevnetGenesisKey {
  label: string;
  /** 32-byte secp256k1 secret key, hex. */
  secretKeyHex: string;
  /** Its public account id, base58. */
  account: string;
  balance: bigint;
}

export const DEVNET_GENESIS: readonly [DevnetGenesisKey, DevnetGenesisKey] = Object.freeze([
  Object.freeze({
    label: 'debug genesis 1',
    secretKeyHex: '7f273098f25b71e6c005a9519f2678da8d1c7f01f6a27778e2d9948abdf901fb',
    account: 'CbgR6tj5kWx5oziiFptM7jMvrQeYY3Mzaao6ciuhSr2r',
    balance: 10_000n,
  }),
  Object.freeze({
    label: 'debug genesis 2',
    secretKeyHex: 'f434f8741720014586ae43356d2aec6257da086222f604ddb75d69733b86fc4c',
    account: '2RHZhw9h534Zr3eq2RGhQete2Hh667foECzXPmSkGni2',
    balance: 20_000n,
  }),
]) as readonly [DevnetGenesisKey, DevnetGenesisKey];

/**
 * The two public accounts of LEZ's built-in testnet state (`testnet_initial_state`), which a real sequencer on
 * `main` funds when its configuration lists none it reads (docs/lez.md §2.6). Public test keys as well.
 */
export const DEVNET_TESTNET_GENESIS: readonly [DevnetGenesisKey, DevnetGenesisKey] = Object.freeze([
  Object.freeze({
    label: 'testnet initial A',
    secretKeyHex: '10a26a9aec7d34b82364eeae45c5294dbb0a764b000b94eeb9b58511dc487c4d',
    account: '6iArKUXxhUJqS7kCaPNhwMWt3ro71PDyBj7jwAyE2VQV',
    balance: 10_000n,
  }),
  Object.freeze({
    label: 'testnet initial B',
    secretKeyHex: '717940b1cc55e5d6b2066dbf1d9a3f26f212f4db08d02388177fcfedd8a9be1b',
    account: '7wHg9sbJwc6h3NP1S9bekfAzB8CHifEcxKswCKUt3YQo',
    balance: 20_000n,
  }),
]) as readonly [DevnetGenesisKey, DevnetGenesisKey];

/** One funded account as options give it: a base58 id and a u128 balance (bigint, safe number or decimal string). */
export const GenesisAccountInput = z
  .object({
    account: z.string().transform((text, ctx) => {
      const parsed = parseAccountId(text);
      if (!parsed.ok) {
        ctx.addIssue({ code: 'custom', message: parsed.reason });
        return z.NEVER;
      }
      return parsed;
    }),
    balance: z.union([U128, U128Decimal]),
    /** Owned by authenticated_transfer (the default, as genesis accounts are), or left unclaimed. */
    initialised: z.boolean().default(true),
  })
  .strict();
export type GenesisAccountInput = z.input<typeof GenesisAccountInput>;

export interface GenesisAccount {
  id: Uint8Array;
  account: string;
  balance: bigint;
  initialised: boolean;
}

/**
 * The debug accounts (unless left out) followed by the extra ones. An account listed twice, or balances adding
 * up past u128 (which would let a credit overflow), is a configuration error and throws.
 */
export function resolveGenesis(
  extra: readonly z.output<typeof GenesisAccountInput>[],
  includeDebugAccounts: boolean,
  includeTestnetAccounts = false,
): GenesisAccount[] {
  const builtIn = [
    ...(includeDebugAccounts ? DEVNET_GENESIS : []),
    ...(includeTestnetAccounts ? DEVNET_TESTNET_GENESIS : []),
  ].map((key) => {
    const parsed = parseAccountId(key.account);
    if (!parsed.ok) throw new Error(`bad built-in genesis account ${key.account}`);
    return { id: parsed.id, account: key.account, balance: key.balance, initialised: true };
  });
  const accounts = [
    ...builtIn,
    ...extra.map((entry) => ({
      id: entry.account.id,
      account: entry.account.text,
      balance: entry.balance,
      initialised: entry.initialised,
    })),
  ];
  const seen = new Set<string>();
  let supply = 0n;
  for (const entry of accounts) {
    if (seen.has(entry.account)) throw new RangeError(`genesis lists account ${entry.account} twice`);
    seen.add(entry.account);
    supply += entry.balance;
  }
  if (supply > U128_MAX) throw new RangeError('genesis balances add up to more than a u128');
  return accounts;
}
