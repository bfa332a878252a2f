/**
 * The PostgreSQL schema, as numbered migrations: each runs once per database, in order, and is never edited once
 * released (a change is a new migration). Columns match the SQLite stores' so that both share their row mappers
 * (payment-rows.ts, push-rows.ts, task-rows.ts). Text that is compared or ordered (timestamps, ids) uses the "C"
 * collation: byte order, as in SQLite, whatever the server's locale.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'tasks, payments, approvals, push configs and outbox, agents',
    sql: `
CREATE TABLE tasks (
  id          text COLLATE "C" PRIMARY KEY,
  agent_id    text COLLATE "C" NOT NULL,
  context_id  text COLLATE "C" NOT NULL,
  state       integer NOT NULL,
  status_ts   text COLLATE "C" NOT NULL,
  task_json   text NOT NULL,
  agent_addr  text NOT NULL,
  last_seq    integer NOT NULL,
  request     text NOT NULL,
  retry_key   text COLLATE "C",
  owner       text COLLATE "C"
);
CREATE INDEX tasks_by_agent_time ON tasks (agent_id, status_ts DESC, id DESC);
CREATE INDEX tasks_by_retry_key ON tasks (retry_key) WHERE retry_key IS NOT NULL;
CREATE INDEX tasks_by_owner_time ON tasks (agent_id, owner, status_ts DESC, id DESC) WHERE owner IS NOT NULL;
CREATE INDEX tasks_active ON tasks (state) WHERE state NOT IN (3, 4, 5, 7);

CREATE TABLE payments (
  task_id     text PRIMARY KEY,
  agent_id    text NOT NULL,
  amount      numeric(39, 0) NOT NULL,
  payee       text NOT NULL,
  rail        text NOT NULL,
  rail_state  text NOT NULL,
  status      text NOT NULL,
  tx_hash     text UNIQUE,
  refund_tx   text UNIQUE,
  caller      text,
  payer       text,
  created_at  text COLLATE "C" NOT NULL,
  updated_at  text COLLATE "C" NOT NULL
);
CREATE INDEX payments_by_time ON payments (created_at);
CREATE INDEX payments_by_caller ON payments (caller) WHERE caller IS NOT NULL;
CREATE TABLE approvals (
  task_id     text PRIMARY KEY,
  agent_id    text NOT NULL,
  amount      numeric(39, 0) NOT NULL,
  reason      text NOT NULL,
  status      text NOT NULL,
  created_at  text COLLATE "C" NOT NULL,
  decided_at  text
);

CREATE TABLE push_configs (
  task_id           text COLLATE "C" NOT NULL,
  config_id         text COLLATE "C" NOT NULL,
  url               text NOT NULL,
  token             text,
  auth_scheme       text,
  auth_credentials  text,
  protocol_version  text NOT NULL,
  owner             text,
  created_at        text COLLATE "C" NOT NULL,
  PRIMARY KEY (task_id, config_id)
);
CREATE TABLE push_outbox (
  seq              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id         text NOT NULL,
  task_id          text NOT NULL,
  config_id        text NOT NULL,
  url              text NOT NULL,
  headers          text NOT NULL,
  body             text NOT NULL,
  state            text NOT NULL,
  attempts         integer NOT NULL,
  next_attempt_at  bigint NOT NULL,
  last_error       text,
  created_at       text NOT NULL,
  UNIQUE (event_id, config_id)
);
CREATE INDEX push_outbox_queues ON push_outbox (task_id, config_id, seq) WHERE state = 'pending';
CREATE INDEX push_outbox_due ON push_outbox (next_attempt_at) WHERE state = 'pending';

CREATE TABLE agents (
  id            text PRIMARY KEY,
  card_json     text NOT NULL,
  updated_at    text NOT NULL,
  last_seen_at  text NOT NULL
);`,
  },
  {
    version: 2,
    name: 'rate-limit counts (formerly created by the rate limiter itself)',
    // IF NOT EXISTS: databases from before this migration have the table already, made by the rate limiter.
    sql: `
CREATE TABLE IF NOT EXISTS rate_limit_hits (
  subject       text NOT NULL,
  window_start  bigint NOT NULL,
  hits          integer NOT NULL,
  PRIMARY KEY (subject, window_start)
);`,
  },
  {
    version: 3,
    name: 'replicas: task leases, the change feed, commands for the owning replica',
    sql: `
CREATE TABLE task_leases (
  task_id     text COLLATE "C" PRIMARY KEY,
  owner       text NOT NULL,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX task_leases_by_owner ON task_leases (owner);

CREATE TABLE task_changes (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  task_id     text COLLATE "C" NOT NULL,
  change      text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX task_changes_by_task ON task_changes (task_id, id);
CREATE INDEX task_changes_by_time ON task_changes (created_at);

CREATE TABLE task_commands (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  task_id     text COLLATE "C" NOT NULL,
  command     text NOT NULL,
  claimed_by  text,
  result      text,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX task_commands_open ON task_commands (task_id, id) WHERE result IS NULL;`,
  },
  {
    version: 4,
    name: 'one task per priced message (unique retry keys), lease epochs that fence task writes',
    // Duplicates made before the key was unique keep their tasks; only the newest keeps the key.
    sql: `
UPDATE tasks SET retry_key = NULL
  WHERE retry_key IS NOT NULL
    AND id NOT IN (SELECT DISTINCT ON (agent_id, retry_key) id FROM tasks WHERE retry_key IS NOT NULL
                   ORDER BY agent_id, retry_key, status_ts DESC, id DESC);
DROP INDEX tasks_by_retry_key;
CREATE UNIQUE INDEX tasks_by_retry_key ON tasks (agent_id, retry_key) WHERE retry_key IS NOT NULL;
ALTER TABLE tasks ADD COLUMN lease_epoch integer NOT NULL DEFAULT 0;`,
  },
  {
    version: 5,
    name: "the listings' indexes in ascending order of status time",
    // As migrations/0005_ascending_time_indexes.sql does for SQLite: the listings (task-store.ts, `list`) read these
    // backwards for the newest first, and a new task's entry goes to the end of its index instead of its start, where
    // each page split left two half-full pages. Built inside the migrations' transaction (not CONCURRENTLY, which no
    // transaction allows): writes to tasks wait for the build, once, at the first start of this version.
    sql: `
DROP INDEX tasks_by_agent_time;
DROP INDEX tasks_by_owner_time;
CREATE INDEX tasks_by_agent_status_ts ON tasks (agent_id, status_ts, id);
CREATE INDEX tasks_by_owner_status_ts ON tasks (agent_id, owner, status_ts, id) WHERE owner IS NOT NULL;`,
  },
  {
    version: 6,
    name: "a task's last reply seq as a 64-bit integer, as SQLite and D1 keep it",
    // An agent's reply seq is any positive safe integer (the binding bounds it by JavaScript's, not by 2^31): with
    // `integer` every write of a task whose agent numbered past 2^31 failed, its terminal write too. The column's
    // type changes in place, rewriting the table once: writes to tasks wait for it at the first start of this version.
    sql: `ALTER TABLE tasks ALTER COLUMN last_seq TYPE bigint;`,
  },
  {
    version: 7,
    name: 'changes of tasks with webhooks marked until their notifications are queued',
    // A change is marked in the transaction that commits it when its task has a webhook, and the mark is cleared in
    // the one that queues its notifications (push-store.ts, queueMarked): a replica that dies between the two leaves
    // the mark, for whichever replica looks next. The index holds only marked rows, which live for milliseconds.
    sql: `
ALTER TABLE task_changes ADD COLUMN unqueued boolean NOT NULL DEFAULT false;
CREATE INDEX task_changes_unqueued ON task_changes (task_id, id) WHERE unqueued;`,
  },
];
