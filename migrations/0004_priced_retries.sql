-- One task per priced message (src/bridge/task-engine.ts, "priced retries"): the store's unique index decides which
-- of several identical sends creates the task; the others join it. Duplicates made before the key was unique keep
-- their tasks; only the newest keeps the key.
UPDATE tasks SET retry_key = NULL
  WHERE retry_key IS NOT NULL
    AND rowid NOT IN (SELECT max(rowid) FROM tasks WHERE retry_key IS NOT NULL GROUP BY agent_id, retry_key);
CREATE UNIQUE INDEX IF NOT EXISTS tasks_by_agent_retry_key ON tasks (agent_id, retry_key) WHERE retry_key IS NOT NULL;
