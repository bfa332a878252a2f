/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the COMMIT that crosses its
 * threshold, on the committing connection: it copies the WAL's pages back into the database file and syncs it, and
 * under load each one held the gateway's event loop for 5–80 ms (the ten slowest commits were most of all commit
 * time). Here a worker thread with a connection of its own runs a PASSIVE checkpoint (it never waits for, nor blocks,
 * a reader or writer) whenever the WAL has grown, and the stores' connections keep only a far threshold, a safety net
 * for a checkpointer that has stopped.
 *
 * Durability is unchanged: a transaction is durable (to the store's `synchronous` level) once its COMMIT returns,
 * before any checkpoint; a checkpoint only moves committed pages into the database file, and SQLite makes that
 * crash-safe whichever connection runs it.
 */
import { Worker } from 'node:worker_threads';

/**
 * `wal_autocheckpoint` (pages) for connections whose file has a checkpointer: far enough that it only acts when the
 * checkpointer has stopped (about 80 MB of WAL at SQLite's 4 KiB pages), near enough that the WAL stays bounded.
 */
export const SAFETY_NET_AUTOCHECKPOINT_PAGES = 20_000;

/**
 * Wait between two checkpoints, ms. Each checkpoint that catches up lets the next commit start the WAL over, and that
 * commit syncs the WAL's new header on the event loop: a checkpoint every commit or so would trade one stall for many
 * smaller ones. SQLite's own threshold here was 4,000 pages, about one to three seconds of writes under load.
 */
const INTERVAL_MS = 2_000;

/**
 * The worker's whole program. It runs from its source text (an `eval` worker), so that the bundled CLI needs no
 * file of its own for it: it may use nothing but its arguments and `require`.
 */
function checkpointLoop(path: string, intervalMs: number): void {
  /* eslint-disable @typescript-eslint/no-require-imports -- an eval worker is a CommonJS script */
  const { DatabaseSync } = require('node:sqlite') as typeof import('node:sqlite');
  const { parentPort } = require('node:worker_threads') as typeof import('node:worker_threads');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const db = new DatabaseSync(path);
  // Checkpointing syncs the WAL before copying and the database after; this connection never commits anything.
  db.exec('PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0;');
  const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  // Nothing to copy costs a look at the WAL's index: no need to tell a quiet WAL from a busy one.
  const timer = setInterval(() => checkpoint.get(), intervalMs);
  parentPort!.once('message', () => {
    clearInterval(timer);
    db.close();
    parentPort!.close();
  });
}

/** One checkpointer per database file; `close` ends its thread (the connection's close checkpoints a last time). */
export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  constructor(path: string) {
    this.worker = new Worker(
      // node:sqlite's experimental warning is the main thread's to print (or not), once.
      `process.removeAllListeners('warning');
       const { path, intervalMs } = require('node:worker_threads').workerData;
       (${checkpointLoop.toString()})(path, intervalMs);`,
      { eval: true, workerData: { path, intervalMs: INTERVAL_MS } },
    );
    // A stopped checkpointer costs only the stores' far threshold: say why, and carry on.
    this.worker.on('error', (error) =>
      console.error(`SQLite checkpointer of ${path} stopped; checkpoints fall back to the stores:`, error),
    );
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    // A store left open must not keep the process alive for its checkpointer.
    this.worker.unref();
  }

  async close(): Promise<void> {
    // Waited for: the closing thread must not end before its checkpointer has closed the connection.
    this.worker.ref();
    this.worker.postMessage('stop');
    await this.exited;
  }
}
