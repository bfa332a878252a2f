/**
 * UUIDs, written into one buffer and read out as one string: node's `randomUUID` builds each from 16 pieces of text
 * (about 600 bytes of garbage per id), and a task makes several.
 *
 * Time-ordered ones (version 7, RFC 9562 §5.7): 48 bits of Unix milliseconds, then 74 random bits. Task ids are the primary key of the task table on SQLite and PostgreSQL. A random (v4) key sends each insert to a
 * random leaf of the key's B-tree, so a commit of a batch of tasks rewrites one page per task; ids that grow with
 * time land on the last leaf, and the batch shares a page or two. The 74 random bits keep an id as hard to guess as
 * a v4 one is in practice; what it reveals, its creation time, every task's status already carries. The engine's
 * other ids (a task's context, its envelopes, its agent's messages) are these too.
 *
 * Random ones (version 4) where an id should say nothing of when it was made (a request's id, in logs and headers).
 */
import { fillRandom } from './random-pool.ts';

const bytes = new Uint8Array(16);
/** The random part of a v7 id, as one view made once: a view made for each id cost more than the id. */
const randomPart = bytes.subarray(6);
/** The id's text, its dashes in place: each byte's two digits are written in, and the whole read out as one string. */
const text = Buffer.alloc(36, '-');
/** Where each byte's two digits go in the text. */
const DIGITS_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const HEX_DIGIT = Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));

export function uuidV7(now: number = Date.now()): string {
  fillRandom(randomPart);
  // 48-bit big-endian milliseconds: the high 16 bits, then the low 32 (bitwise operators work on 32 bits).
  const high = Math.floor(now / 2 ** 32);
  const low = now >>> 0;
  bytes[0] = (high >>> 8) & 0xff;
  bytes[1] = high & 0xff;
  bytes[2] = low >>> 24;
  bytes[3] = (low >>> 16) & 0xff;
  bytes[4] = (low >>> 8) & 0xff;
  bytes[5] = low & 0xff;
  return formatted(0x70);
}

export function uuidV4(): string {
  fillRandom(bytes);
  return formatted(0x40);
}

/** `bytes` with its version and variant set, as text; the bytes are cleared. */
function formatted(version: number): string {
  bytes[6] = version | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f); // variant 10
  for (let i = 0; i < 16; i++) {
    const byte = bytes[i]!;
    const at = DIGITS_AT[i]!;
    text[at] = HEX_DIGIT[byte >>> 4]!;
    text[at + 1] = HEX_DIGIT[byte & 0x0f]!;
  }
  bytes.fill(0);
  return text.toString('latin1');
}
