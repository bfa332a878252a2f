-- The gateway's tasks on Cloudflare D1 (src/store/d1/task-store.ts): the same table as the SQLite store's.
-- Terminal states (completed 3, failed 4, canceled 5, rejected 7) are left out of the active-tasks index.
CREATE TABLE IF NOT EXISTS tasks (
  id          TEXT PRIMARY KEY,
  agent_id    TEXT NOT NULL,
  context_id  TEXT NOT NULL,
  state       INTEGER NOT NULL,
  status_ts   TEXT NOT NULL,
  task_json   TEXT NOT NULL,
  agent_addr  TEXT NOT NULL,
  last_seq    INTEGER NOT NULL,
  request     TEXT NOT NULL,
  retry_key   TEXT,
  owner       TEXT
) STRICT;
-- The listings' indexes (by agent, by owner, in status time) are 0005_ascending_time_indexes.sql's.
CREATE INDEX IF NOT EXISTS tasks_by_retry_key ON tasks (retry_key) WHERE retry_key IS NOT NULL;
CREATE INDEX IF NOT EXISTS tasks_active ON tasks (state) WHERE state NOT IN (3, 4, 5, 7);
