/**
 * `logos-a2a card sign|verify FILE`: an agent's card, signed with the LEZ key of its public account
 * (src/logos/card-signature.ts for the format).
 *
 * - `card sign FILE --key-file K`: unlocks K (an encrypted LEZ key file, `logos-a2a keys`) with
 *   LOGOS_A2A_WALLET_PASSPHRASE, fills in `x-lez-identity.account_id` from the key when the card has none (and
 *   refuses a card that names another account), signs, and prints the signed card on standard output. With
 *   `--write` it replaces FILE instead (atomically) and prints one line saying so. An existing signature is replaced.
 * - `card verify FILE`: prints `OK …` with the agent and its account and exits 0, or the reason and exits 1.
 *
 * FILE `-` is standard input (not with `--write`). Exit codes: 0 done, 1 refused or failed, 2 usage.
 */
import { readFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { loadKeyFile } from '../lez/wallet-key-file.ts';
import { MAX_SIGNED_CARD_BYTES, signLogosCard, verifyLogosCard } from '../logos/card-signature.ts';

export interface CardCommandOptions {
  action: string | undefined;
  file: string | undefined;
  keyFile?: string;
  passphrase?: string;
  /** sign: write the signed card back to FILE instead of standard output. */
  write?: boolean;
  /** Results (and, unless `err` is given, messages). */
  out: (text: string) => void;
  /** Error and progress messages; default: `out`. */
  err?: (text: string) => void;
}

export async function runCardCommand(options: CardCommandOptions): Promise<number> {
  const err = options.err ?? options.out;
  const fail: Fail = (message, code = 1) => {
    err(`logos-a2a card: ${message}\n`);
    return code;
  };
  const { action, file, keyFile, passphrase } = options;
  if (action !== 'sign' && action !== 'verify') return fail('say sign or verify: logos-a2a card sign|verify FILE', 2);
  if (!file) return fail(`${action} takes the card file: logos-a2a card ${action} FILE (- for standard input)`, 2);
  if (action === 'verify') return verifyCommand(file, options.out, fail);
  if (!keyFile) return fail('sign takes --key-file FILE (an encrypted LEZ key file, see logos-a2a keys)', 2);
  if (options.write && file === '-') return fail('--write needs a file, not standard input', 2);
  if (!passphrase) return fail('set LOGOS_A2A_WALLET_PASSPHRASE to the passphrase that protects the key file.');
  return signCommand(file, keyFile, passphrase, options.write === true, options.out, fail);
}

type Fail = (message: string, code?: number) => number;

function verifyCommand(file: string, out: (text: string) => void, fail: Fail): number {
  const text = readCard(file);
  if (typeof text !== 'string') return fail(text.error);
  const result = verifyLogosCard(text);
  if (!result.ok) return fail(`${file}: ${result.reason}: ${result.message}`);
  out(
    `OK ${file}: agent ${result.card.id} (${result.card.name})\n  account    ${result.accountId}\n  public key ${result.publicKey}\n`,
  );
  return 0;
}

async function signCommand(
  file: string,
  keyFile: string,
  passphrase: string,
  write: boolean,
  out: (text: string) => void,
  fail: Fail,
): Promise<number> {
  const text = readCard(file);
  if (typeof text !== 'string') return fail(text.error);
  const size = Buffer.byteLength(text);
  if (size > MAX_SIGNED_CARD_BYTES)
    return fail(`${file} is ${size} bytes; a signed card is at most ${MAX_SIGNED_CARD_BYTES}`);
  let card: unknown;
  try {
    card = JSON.parse(text);
  } catch (error) {
    return fail(`${file} is not JSON: ${(error as Error).message}`);
  }
  if (typeof card !== 'object' || card === null || Array.isArray(card))
    return fail(`${file} does not hold a JSON object`);
  const unlocked = await loadKeyFile(keyFile, passphrase);
  if (!unlocked.ok) return fail(unlocked.message);

  let signed: object;
  try {
    signed = signLogosCard(card, unlocked.key.secretKey);
  } catch (error) {
    return fail(`cannot sign ${file}: ${(error as Error).message}`);
  } finally {
    unlocked.key.secretKey.fill(0);
  }
  const output = `${JSON.stringify(signed, null, 2)}\n`;
  // What we print must be what a verifier accepts; anything else is a bug worth stopping for.
  const check = verifyLogosCard(output);
  if (!check.ok) return fail(`the signed card does not verify (${check.reason}: ${check.message})`);

  if (!write) {
    out(output);
    return 0;
  }
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, output, { flag: 'wx' });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    return fail(`cannot write ${file}: ${(error as Error).message}`);
  }
  out(`Signed ${file}: agent ${check.card.id}, account ${check.accountId}\n`);
  return 0;
}

function readCard(file: string): string | { error: string } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file === '-' ? 0 : file);
  } catch (error) {
    return { error: `cannot read ${file}: ${(error as Error).message}` };
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { error: `${file} is not UTF-8 text` };
  }
}
