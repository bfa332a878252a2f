/** One devnet per data directory: a live holder's lock refuses a second one; a dead holder's lock is taken over. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { BlockLog } from '../../src/devnet/block-log.ts';

const anyBlock = () => true;

it('refuses a directory another live process holds, naming it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-blocklog-'));
  writeFileSync(join(dir, 'lock'), String(process.ppid)); // a process that is certainly alive: our parent
  expect(() => BlockLog.open(dir, 'chain', anyBlock)).toThrow(`in use by another devnet (process ${process.ppid})`);
  expect(readFileSync(join(dir, 'lock'), 'utf8')).toBe(String(process.ppid)); // not taken from its holder
});

it('takes over the lock of a process that is gone, and gives it back on close', () => {
  const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-blocklog-'));
  const gone = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid;
  writeFileSync(join(dir, 'lock'), String(gone));
  const { log } = BlockLog.open(dir, 'chain', anyBlock);
  expect(readFileSync(join(dir, 'lock'), 'utf8')).toBe(String(process.pid));
  log.close();
  expect(existsSync(join(dir, 'lock'))).toBe(false);
});
