/**
 * The gateway's durable state, from its `database` setting: a SQLite file (the embedded default, or ":memory:"), or
 * a PostgreSQL server (`postgres://…`) that any number of replicas share.
 */
import type { DirectoryStore } from './directory-store.ts';
import type { PaymentStore } from './payment-store.ts';
import { isPostgresUrl, migrate, openPostgres, type Sql } from './postgres/connection.ts';
import { PostgresDirectoryStore } from './postgres/directory-store.ts';
import { PostgresPaymentStore } from './postgres/payment-store.ts';
import { PostgresPushStore } from './postgres/push-store.ts';
import { newReplicaId, PostgresReplicaStore } from './postgres/replica-store.ts';
import { PostgresTaskStore, type LeaseFences } from './postgres/task-store.ts';
import type { PushStore } from './push-store.ts';
import type { ReplicaStore } from './replica-store.ts';
import { WalCheckpointer } from './sqlite/checkpointer.ts';
import { SqliteDirectoryStore } from './sqlite/directory-store.ts';
import { SqlitePaymentStore } from './sqlite/payment-store.ts';
import { SqlitePushStore } from './sqlite/push-store.ts';
import { SqliteTaskStore } from './sqlite/task-store.ts';
import type { TaskStore } from './task-store.ts';

export interface Stores {
  readonly tasks: TaskStore;
  readonly payments: PaymentStore;
  readonly push: PushStore;
  readonly directory: DirectoryStore;
  /** The PostgreSQL pool, when on PostgreSQL: for the other users of the same database. */
  readonly sql?: Sql;
  /** Leases, the change feed and commands shared with the other replicas, when on PostgreSQL. */
  readonly replicas?: ReplicaStore;
  /** Closes every store, then the pool. */
  close(): Promise<void>;
}

export interface StoreOptions {
  /** How long a replica's task lease lasts without renewal (PostgreSQL only). Default 15 s. */
  leaseMs?: number;
  log?: (message: string) => void;
  /** Hears each statement sent to PostgreSQL (see openPostgres). */
  onStatement?: (statement: string) => void;
}

export async function openStores(database: string, options: StoreOptions = {}): Promise<Stores> {
  if (!isPostgresUrl(database)) {
    const stores = {
      tasks: new SqliteTaskStore(database),
      payments: new SqlitePaymentStore(database),
      push: new SqlitePushStore(database),
      directory: new SqliteDirectoryStore(database),
    };
    // Started once the stores have made the file; an in-memory database has no WAL.
    const checkpointer = database === ':memory:' ? undefined : new WalCheckpointer(database);
    return {
      ...stores,
      close: async () => {
        await closeAll(Object.values(stores));
        await checkpointer?.close();
      },
    };
  }
  const sql = openPostgres(database, options.onStatement ? { onStatement: options.onStatement } : {});
  try {
    await migrate(sql);
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw error;
  }
  // One id for this replica's leases, and one set of lease epochs, for the fence on its task writes.
  const replicaId = newReplicaId(true);
  const leaseMs = options.leaseMs ?? 15_000;
  const fences: LeaseFences = new Map();
  const stores = {
    tasks: new PostgresTaskStore(sql, { replicaId, leaseMs, fences }),
    payments: new PostgresPaymentStore(sql),
    push: new PostgresPushStore(sql),
    directory: new PostgresDirectoryStore(sql),
  };
  const replicas = new PostgresReplicaStore(sql, {
    replicaId,
    leaseMs,
    fences,
    ...(options.log ? { log: options.log } : {}),
    openSession: (onClose) => openPostgres(database, { max: 1, session: { onClose } }),
  });
  return {
    ...stores,
    sql,
    replicas,
    close: async () => {
      await replicas.close();
      await closeAll(Object.values(stores));
      await sql.end({ timeout: 5 });
    },
  };
}

async function closeAll(stores: { close(): Promise<void> }[]): Promise<void> {
  await Promise.all(stores.map((store) => store.close()));
}
