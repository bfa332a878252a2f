/**
 * A party's Logos identity on disk: a 32-byte secp256k1 secret key as hex, created on first use with owner-only
 * permissions, so that a gateway or agent keeps its address across restarts (tasks in flight are addressed to it).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export function loadOrCreateKey(path: string): Uint8Array {
  if (existsSync(path)) {
    const hex = readFileSync(path, 'utf8').trim();
    if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`${path} does not hold a 32-byte hex key`);
    return Uint8Array.from(Buffer.from(hex, 'hex'));
  }
  mkdirSync(dirname(path), { recursive: true });
  // A uniformly random 32-byte value is a valid secp256k1 secret key with overwhelming probability (1 - 2^-128).
  const key = randomBytes(32);
  writeFileSync(path, `${key.toString('hex')}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return Uint8Array.from(key);
}
