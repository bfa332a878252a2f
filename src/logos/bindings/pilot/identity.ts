/**
 * The gateway's identity towards pilot agents, kept on disk: an agent pins `sender_npk → signing key` at first
 * contact and drops every later request of that sender under another key, so a gateway that made up new keys at each
 * start would be shut out by every agent it ever called. Three files in `dir`: the signing key, the ECIES key
 * (replies are encrypted to it), and the sender name, made from the signing key so that it is unique to it.
 */
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
    writeFileSync(npkFile, `logos-a2a:${publicKeyHex(signingKey).slice(2, 34)}\n`, { mode: 0o600 });
  }
  return { senderNpk: readFileSync(npkFile, 'utf8').trim(), signingKey, eciesKey };
}
