-- The listings' indexes (src/store/task-rows.ts, taskListSql) in ascending order of status time, read backwards for
-- the newest first: a new task's entry then goes to the end of its index, as the tasks' own rows do, instead of to
-- its start, where every page split left two half-full pages (a descending index was half as full, and each batch
-- of inserts wrote more of its pages). 0001 made them descending until this file; a database that has those
-- exchanges them here, once.
DROP INDEX IF EXISTS tasks_by_agent_time;
DROP INDEX IF EXISTS tasks_by_owner_time;
CREATE INDEX IF NOT EXISTS tasks_by_agent_status_ts ON tasks (agent_id, status_ts, id);
CREATE INDEX IF NOT EXISTS tasks_by_owner_status_ts ON tasks (agent_id, owner, status_ts, id) WHERE owner IS NOT NULL;
