/**
 * The gateway's LEZ key at rest: a JSON file whose secret (a mnemonic + wallet path, or a raw secret key) is
 * encrypted with AES-256-GCM under a key stretched from a passphrase with scrypt.
 *
 * ```json
 * { "format": "logos-a2a/lez-key", "version": 1,
 *   "kdf": { "name": "scrypt", "logN": 17, "r": 8, "p": 1 }, "salt": "<base64, 16 bytes>",
 *   "cipher": "aes-256-gcm", "nonce": "<base64, 12 bytes>", "ciphertext": "<base64, ciphertext ‖ 16-byte tag>",
 *   "account": "<base58 public account id>" }
 * ```
 *
 * `account` is public, so anyone can see which account a file holds without the passphrase; it and every other
 * header field are bound into the GCM tag as associated data, so editing any of them fails decryption like a
 * wrong passphrase does. A wrong passphrase is an expected outcome: `{ok:false, reason:'wrong-passphrase'}`.
 */
import { scryptAsync } from '@noble/hashes/scrypt.js';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { link, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { parseAccountId } from './account-id.ts';
import { parseHex, toHex } from './bytes.ts';
import { signingKeyFromMnemonic, signingKeyFromSecretKey, type SigningKey } from './keys.ts';
import { isValidSecretKey } from './public-key.ts';

export const KEY_FILE_FORMAT = 'logos-a2a/lez-key';
export const KEY_FILE_VERSION = 1;

/** scrypt cost: N = 2^logN. 2^17 × r 8 is 128 MiB and about half a second. */
export interface ScryptParams {
  logN: number;
  r: number;
  p: number;
}
export const DEFAULT_SCRYPT: ScryptParams = { logN: 17, r: 8, p: 1 };

/** Bounds on what a file may ask for, so a hostile file cannot make unlocking eat gigabytes or hours. */
const MAX_LOG_N = 20;
const MIN_LOG_N = 10;

export type KeySecret =
  { type: 'mnemonic'; mnemonic: string; path: string } | { type: 'secret-key'; secretKey: Uint8Array };

const base64Bytes = (length: number) =>
  z
    .string()
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64')
    .refine((s) => Buffer.from(s, 'base64').byteLength === length, `must be ${length} bytes`);

const KeyFileSchema = z.object({
  format: z.literal(KEY_FILE_FORMAT),
  version: z.literal(KEY_FILE_VERSION),
  kdf: z.object({
    name: z.literal('scrypt'),
    logN: z.number().int().min(MIN_LOG_N).max(MAX_LOG_N),
    r: z.number().int().min(1).max(32),
    p: z.number().int().min(1).max(16),
  }),
  salt: base64Bytes(16),
  cipher: z.literal('aes-256-gcm'),
  nonce: base64Bytes(12),
  ciphertext: z
    .string()
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64')
    .min(24),
  account: z.string().refine((s) => parseAccountId(s).ok, 'must be a base58 account id'),
});
export type KeyFile = z.infer<typeof KeyFileSchema>;

/** What is inside the ciphertext. */
const SecretSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('mnemonic'), mnemonic: z.string(), path: z.string() }),
  z.object({ type: z.literal('secret-key'), secretKey: z.string() }),
]);

export type KeyFileUnlock =
  | { ok: true; secret: KeySecret; key: SigningKey }
  | { ok: false; reason: 'wrong-passphrase' | 'malformed' | 'unsupported' | 'unreadable'; message: string };

function normalisePassphrase(passphrase: string): Uint8Array {
  // NFKC, so the same passphrase typed on systems that compose accents differently unlocks the same file.
  return new TextEncoder().encode(passphrase.normalize('NFKC'));
}

async function deriveKey(passphrase: string, salt: Uint8Array, kdf: ScryptParams): Promise<Uint8Array> {
  return scryptAsync(normalisePassphrase(passphrase), salt, {
    N: 2 ** kdf.logN,
    r: kdf.r,
    p: kdf.p,
    dkLen: 32,
    maxmem: 2 ** 31,
  });
}

/** The header fields, in a fixed order, authenticated as GCM associated data. */
function associatedData(file: Omit<KeyFile, 'ciphertext'>): Uint8Array {
  const { format, version, kdf, salt, cipher, nonce, account } = file;
  return new TextEncoder().encode(
    JSON.stringify([format, version, kdf.name, kdf.logN, kdf.r, kdf.p, salt, cipher, nonce, account]),
  );
}

function keyOf(secret: KeySecret): SigningKey {
  if (secret.type === 'secret-key') return signingKeyFromSecretKey(secret.secretKey);
  const derived = signingKeyFromMnemonic(secret.mnemonic, secret.path);
  if (!derived.ok) throw new RangeError(`cannot store this mnemonic: ${derived.reason}`);
  return derived;
}

/** Encrypts a key. A bad key or an empty passphrase is a caller error (thrown). */
export async function encryptKeyFile(
  secret: KeySecret,
  passphrase: string,
  kdf: ScryptParams = DEFAULT_SCRYPT,
): Promise<KeyFile> {
  if (passphrase.length === 0) throw new RangeError('a key file needs a non-empty passphrase');
  if (kdf.logN < MIN_LOG_N || kdf.logN > MAX_LOG_N)
    throw new RangeError(`scrypt logN must be ${MIN_LOG_N}..${MAX_LOG_N}`);
  if (secret.type === 'secret-key' && !isValidSecretKey(secret.secretKey))
    throw new RangeError('invalid secp256k1 secret key');
  const key = keyOf(secret);
  const salt = randomBytes(16);
  const nonce = randomBytes(12);
  const header = {
    format: KEY_FILE_FORMAT,
    version: KEY_FILE_VERSION,
    kdf: { name: 'scrypt' as const, ...kdf },
    salt: salt.toString('base64'),
    cipher: 'aes-256-gcm' as const,
    nonce: nonce.toString('base64'),
    account: key.account,
  } satisfies Omit<KeyFile, 'ciphertext'>;
  const plaintext = Buffer.from(
    JSON.stringify(
      secret.type === 'mnemonic'
        ? { type: 'mnemonic', mnemonic: secret.mnemonic, path: secret.path }
        : { type: 'secret-key', secretKey: toHex(secret.secretKey) },
    ),
  );
  const cipher = createCipheriv('aes-256-gcm', await deriveKey(passphrase, salt, kdf), nonce);
  cipher.setAAD(associatedData(header));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  plaintext.fill(0);
  return { ...header, ciphertext: body.toString('base64') };
}

/** Unlocks a key file (its parsed JSON or its text). Never throws on bad files or passphrases. */
export async function decryptKeyFile(input: unknown, passphrase: string): Promise<KeyFileUnlock> {
  let json = input;
  if (typeof input === 'string') {
    try {
      json = JSON.parse(input);
    } catch {
      return malformed('key file is not JSON');
    }
  }
  const head = z.object({ format: z.string(), version: z.unknown() }).safeParse(json);
  if (head.success && head.data.format === KEY_FILE_FORMAT && head.data.version !== KEY_FILE_VERSION) {
    const message = `key file version ${String(head.data.version)} is not supported (expected ${KEY_FILE_VERSION})`;
    return { ok: false, reason: 'unsupported', message };
  }
  const parsed = KeyFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return malformed(`key file: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  const file = parsed.data;
  const body = Buffer.from(file.ciphertext, 'base64');
  let plaintext: Buffer;
  try {
    const key = await deriveKey(passphrase, Buffer.from(file.salt, 'base64'), file.kdf);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(file.nonce, 'base64'));
    decipher.setAAD(associatedData(file));
    decipher.setAuthTag(body.subarray(body.byteLength - 16));
    plaintext = Buffer.concat([decipher.update(body.subarray(0, body.byteLength - 16)), decipher.final()]);
  } catch {
    // GCM cannot tell a wrong key from edited bytes; with the header authenticated, a wrong passphrase is the
    // likely cause and the message says both.
    return { ok: false, reason: 'wrong-passphrase', message: 'wrong passphrase (or the key file was altered)' };
  }
  let secretJson: unknown;
  try {
    secretJson = JSON.parse(plaintext.toString('utf8'));
  } catch {
    return malformed('key file secret is not JSON');
  } finally {
    plaintext.fill(0);
  }
  const inner = SecretSchema.safeParse(secretJson);
  if (!inner.success) return malformed('key file secret has an unknown shape');
  let secret: KeySecret;
  if (inner.data.type === 'secret-key') {
    const bytes = parseHex(inner.data.secretKey, 32);
    if (!bytes.ok || !isValidSecretKey(bytes.bytes)) return malformed('key file secret key is invalid');
    secret = { type: 'secret-key', secretKey: bytes.bytes };
  } else {
    const derived = signingKeyFromMnemonic(inner.data.mnemonic, inner.data.path);
    if (!derived.ok) return malformed(`key file mnemonic: ${derived.reason}`);
    secret = { type: 'mnemonic', mnemonic: inner.data.mnemonic, path: inner.data.path };
  }
  const key = keyOf(secret);
  if (key.account !== file.account) {
    return malformed(`key file holds account ${key.account}, not the ${file.account} it names`);
  }
  return { ok: true, secret, key };
}

function malformed(message: string): KeyFileUnlock {
  return { ok: false, reason: 'malformed', message };
}

export function serializeKeyFile(file: KeyFile): string {
  return `${JSON.stringify(file, null, 2)}\n`;
}

/**
 * Writes the file owner-readable only (0600), through a temporary file so a crash never leaves half a key. An
 * existing file is never replaced unless `overwrite` says so: losing a funded key is not a recoverable mistake.
 */
export async function saveKeyFile(path: string, file: KeyFile, options: { overwrite?: boolean } = {}): Promise<void> {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, serializeKeyFile(file), { mode: 0o600, flag: 'wx' });
  try {
    // link() fails if the target exists, which makes "create, never clobber" atomic.
    if (options.overwrite) await rename(temporary, path);
    else await link(temporary, path);
  } finally {
    await rm(temporary, { force: true });
  }
}

export async function loadKeyFile(path: string, passphrase: string): Promise<KeyFileUnlock> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return { ok: false, reason: 'unreadable', message: `cannot read key file ${path}: ${(error as Error).message}` };
  }
  return decryptKeyFile(text, passphrase);
}
