import { createHash } from 'node:crypto';

/** The key a message is remembered by: sha256 over its parts, each prefixed with its length (OpenSSL's: native). */
export function digestHex(...parts: Uint8Array[]): string {
  const hash = createHash('sha256');
  const length = new Uint8Array(4);
  const lengthView = new DataView(length.buffer);
  for (const part of parts) {
    lengthView.setUint32(0, part.length, false);
    hash.update(length).update(part);
  }
  return hash.digest('hex');
}
