/**
 * The devnet's chain on disk (`--data DIR`): what defines the chain (`chain.json`: signing mode, program ids,
 * genesis accounts) and every block after genesis (`blocks`: one base64 borsh block per line, appended and
 * fsynced before the block is served). A restart replays the blocks to rebuild the state, and, as a real
 * sequencer does, does not rebuild the tx-hash index: `getTransaction` forgets what earlier blocks hold
 * (docs/lez.md §2.3 item 6), while `getBlock`/`getBlockRange` still serve them.
 *
 * A process killed while appending leaves at most one torn last line, which is cut off at the next start: that
 * block was never served, since a block is served only once its line is on disk.
 *
 * One devnet at a time per directory: two appending to one log would interleave their blocks and leave a chain no
 * start can replay. A `lock` file names the process holding the directory; a lock left by a process that is gone
 * (killed with -9, say) is taken over.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { base64 } from '@scure/base';

export interface StoredChain {
  /** The chain's defining settings, as first written. */
  identity: string;
  /** The blocks after genesis, in order. */
  blocks: Uint8Array[];
}

export class BlockLog {
  private readonly fd: number;
  private readonly lockFile: string;
  private closed = false;

  private constructor(fd: number, lockFile: string) {
    this.fd = fd;
    this.lockFile = lockFile;
  }

  /**
   * Opens (or creates) the chain in `dir`. `identity` describes the chain's genesis; a directory holding another
   * chain is a configuration error and throws, as does a block line that is not the last and does not decode.
   */
  static open(
    dir: string,
    identity: string,
    isBlock: (bytes: Uint8Array) => boolean,
  ): { log: BlockLog; stored: StoredChain } {
    mkdirSync(dir, { recursive: true });
    const lockFile = lockDirectory(dir);
    try {
      return BlockLog.read(dir, identity, isBlock, lockFile);
    } catch (error) {
      rmSync(lockFile, { force: true });
      throw error;
    }
  }

  private static read(
    dir: string,
    identity: string,
    isBlock: (bytes: Uint8Array) => boolean,
    lockFile: string,
  ): { log: BlockLog; stored: StoredChain } {
    const identityFile = join(dir, 'chain.json');
    if (existsSync(identityFile)) {
      const stored = readFileSync(identityFile, 'utf8');
      if (stored !== identity)
        throw new Error(`${identityFile} describes another chain (other genesis, programs or signing mode)`);
    } else {
      const fd = openSync(identityFile, 'w', 0o600);
      writeSync(fd, identity);
      fsyncSync(fd);
      closeSync(fd);
    }
    const blocksFile = join(dir, 'blocks');
    const text = existsSync(blocksFile) ? readFileSync(blocksFile, 'utf8') : '';
    const lines = text.split('\n');
    const blocks: Uint8Array[] = [];
    let kept = 0;
    for (const [i, line] of lines.entries()) {
      const complete = i < lines.length - 1;
      const bytes = complete ? decodeLine(line) : undefined;
      if (!bytes || !isBlock(bytes)) {
        if (complete && i < lines.length - 2) throw new Error(`${blocksFile}: line ${i + 1} is not a block`);
        break;
      }
      blocks.push(bytes);
      kept += line.length + 1;
    }
    const fd = openSync(blocksFile, 'a+', 0o600);
    if (kept < Buffer.byteLength(text)) ftruncateSync(fd, kept);
    return { log: new BlockLog(fd, lockFile), stored: { identity, blocks } };
  }

  append(block: Uint8Array): void {
    writeSync(this.fd, `${base64.encode(block)}\n`);
    fsyncSync(this.fd);
  }

  /** Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
    rmSync(this.lockFile, { force: true });
  }
}

/** Takes `dir/lock` for this process, or throws naming the live process that holds it. */
function lockDirectory(dir: string): string {
  const lockFile = join(dir, 'lock');
  for (;;) {
    try {
      const fd = openSync(lockFile, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return lockFile;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number(readFileSync(lockFile, 'utf8'));
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder))
      throw new Error(
        `${dir} is in use by another devnet (process ${holder}); stop it, or give this one another data directory`,
      );
    rmSync(lockFile, { force: true }); // left by a process that is gone
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function decodeLine(line: string): Uint8Array | undefined {
  try {
    return base64.decode(line);
  } catch {
    return undefined;
  }
}
