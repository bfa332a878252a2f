/**
 * Ids for requests that come without one of their own: random UUIDs (version 4), as crypto.randomUUID makes them.
 * That one joins some twenty short strings into one, a chain of string pieces (some 600 bytes) made on every request
 * and joined again when the id is first read; here the characters are written into a buffer and read out as one string.
 */
import { fillRandom } from '../random-pool.ts';

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
const random = new Uint8Array(16);
const text = Buffer.alloc(36);

export function newRequestId(): string {
  fillRandom(random);
  random[6] = 0x40 | (random[6]! & 0x0f); // version 4
  random[8] = 0x80 | (random[8]! & 0x3f); // variant 10
  let at = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) text[at++] = 0x2d; // -
    const byte = random[i]!;
    text[at++] = HEX_DIGITS[byte >>> 4]!;
    text[at++] = HEX_DIGITS[byte & 0x0f]!;
  }
  random.fill(0);
  return text.toString('latin1');
}
