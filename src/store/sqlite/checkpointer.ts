/**
 * Most of the WAL's checkpointing, off the event loop. SQLite checkpoints inside the COMMIT that takes the WAL past
 * its threshold (the task store's 4,000 pages), on the committing connection: it copies every page not yet copied back
 * into the database file and syncs both files, and under load each such commit held the gateway's event loop for
 * 5–80 ms, mostly in the sync of megabytes of copied pages. Here a worker thread with a connection of its own runs a
 * PASSIVE checkpoint (it never waits for, nor blocks, a reader or writer) every second: when the threshold comes, the
 * stores' checkpoint finds most pages copied and synced already, and has only the last second's to do.
 *
 * The stores keep their own checkpoint, for the WAL to start over: a WAL restarts only at a write that finds every
 * page copied back, which a checkpoint in another thread, always a few commits behind under load, never leaves (the
 * WAL then grows without bound; measured: 54 MB in 11 s). And every restart costs the restarting commit a sync of the
 * WAL's new header, so a checkpointer that caught up often would trade one long stall for many short ones.
 *
 * Durability is unchanged: a transaction is durable (to its store's `synchronous` level) once its COMMIT returns,
 * before any checkpoint; a checkpoint only moves committed pages into the database file, crash-safe whichever
 * connection runs it.
 */
import { Worker } from 'node:worker_threads';

/** Wait between two checkpoints, ms: two or three passes before the task store's threshold, under load. */
const INTERVAL_MS = 1_000;

/**
 * The worker's whole program. It runs from its source text (an `eval` worker), so that the bundled CLI needs no
 * file of its own for it: it may use nothing but its arguments and Node's built-in modules.
 */
function checkpointLoop(path: string, intervalMs: number): void {
  // process.getBuiltinModule rather than require or import: a bundler leaves it alone, and the source stays whole.
  const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
  const { parentPort } = process.getBuiltinModule('node:worker_threads');
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
       const { path, intervalMs } = process.getBuiltinModule('node:worker_threads').workerData;
       (${checkpointLoop.toString()})(path, intervalMs);`,
      { eval: true, workerData: { path, intervalMs: INTERVAL_MS } },
    );
    // A stopped checkpointer leaves the stores' own checkpoints the whole work: say why, and carry on.
    this.worker.on('error', (error) =>
      console.error(`SQLite checkpointer of ${path} stopped; the stores checkpoint alone:`, error),
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
