/**
 * The gateway's identity towards pilot agents, kept on disk: an agent pins `sender_npk → signing key` at first
 * contact and drops every later request of that sender under another key, so a gateway that made up new keys at each
 * start would be shut out by every agent it ever called. Three files in `dir`: the signing key, the ECIES key
 * (replies are encrypted to it), and the sender name, made from the signing key so that it is unique to it. A
 * gateway with no data folder (an in-memory database) has an identity for one run (`freshPilotIdentity`).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadOrCreateKey } from '../../secret-key-file.ts';
import { publicKeyHex } from './signing.ts';
import type { PilotIdentity } from './wire.ts';

export function loadOrCreatePilotIdentity(dir: string): PilotIdentity {
  const signingKey = loadOrCreateKey(join(dir, 'pilot-signing.key'));
  const eciesKey = loadOrCreateKey(join(dir, 'pilot-ecies.key'));
  const npkFile = join(dir, 'pilot-sender-npk');
  if (!existsSync(npkFile)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(npkFile, `${senderNpkOf(signingKey)}\n`, { mode: 0o600 });
  }
  return { senderNpk: readFileSync(npkFile, 'utf8').trim(), signingKey, eciesKey };
}

export function freshPilotIdentity(): PilotIdentity {
  const signingKey = Uint8Array.from(randomBytes(32));
  return { senderNpk: senderNpkOf(signingKey), signingKey, eciesKey: Uint8Array.from(randomBytes(32)) };
}

function senderNpkOf(signingKey: Uint8Array): string {
  return `logos-a2a:${publicKeyHex(signingKey).slice(2, 34)}`;
}
