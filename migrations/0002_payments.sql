-- What the gateway paid agents for (src/store/d1/payment-store.ts, src/store/sqlite/payment-store.ts): one record per
-- paid task, written before any transfer is submitted, and the approvals of tasks above the spending limits.
CREATE TABLE IF NOT EXISTS payments (
  task_id     TEXT PRIMARY KEY,
  agent_id    TEXT NOT NULL,
  amount      TEXT NOT NULL,
  payee       TEXT NOT NULL,
  rail        TEXT NOT NULL,
  rail_state  TEXT NOT NULL,
  status      TEXT NOT NULL,
  tx_hash     TEXT UNIQUE,
  refund_tx   TEXT UNIQUE,
  caller      TEXT,
  payer       TEXT,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS payments_by_time ON payments (created_at);
CREATE INDEX IF NOT EXISTS payments_by_caller ON payments (caller) WHERE caller IS NOT NULL;
CREATE TABLE IF NOT EXISTS approvals (
  task_id     TEXT PRIMARY KEY,
  agent_id    TEXT NOT NULL,
  amount      TEXT NOT NULL,
  reason      TEXT NOT NULL,
  status      TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  decided_at  TEXT
) STRICT;
