/**
 * Time-ordered UUIDs (version 7, RFC 9562 §5.7): 48 bits of Unix milliseconds, then 74 random bits.
 *
 * Task ids are the primary key of the task table on SQLite and PostgreSQL. A random (v4) key sends each insert to a
 * random leaf of the key's B-tree, so a commit of a batch of tasks rewrites one page per task; ids that grow with
 * time land on the last leaf, and the batch shares a page or two. The 74 random bits keep an id as hard to guess as
 * a v4 one is in practice; what it reveals, its creation time, every task's status already carries.
 */
import { fillRandom } from './random-pool.ts';

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
const scratch = new Uint8Array(16);

export function uuidV7(now: number = Date.now()): string {
  fillRandom(scratch.subarray(6));
  // 48-bit big-endian milliseconds: the high 16 bits, then the low 32 (bitwise operators work on 32 bits).
  const high = Math.floor(now / 2 ** 32);
  const low = now >>> 0;
  scratch[0] = (high >>> 8) & 0xff;
  scratch[1] = high & 0xff;
  scratch[2] = low >>> 24;
  scratch[3] = (low >>> 16) & 0xff;
  scratch[4] = (low >>> 8) & 0xff;
  scratch[5] = low & 0xff;
  scratch[6] = 0x70 | (scratch[6]! & 0x0f); // version 7
  scratch[8] = 0x80 | (scratch[8]! & 0x3f); // variant 10
  const h = (from: number, to: number) => {
    let out = '';
    for (let i = from; i < to; i++) out += HEX[scratch[i]!];
    return out;
  };
  const id = `${h(0, 4)}-${h(4, 6)}-${h(6, 8)}-${h(8, 10)}-${h(10, 16)}`;
  scratch.fill(0);
  return id;
}
