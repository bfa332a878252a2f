/**
 * `logos-a2a ARGS` (the CLI from the sources) as a replica that kills itself with SIGKILL the moment the write of a
 * task's terminal state has committed: after the save, before the gateway does anything else with it (publish it,
 * tell its listeners, end its lease). A kill from outside cannot hit that window; this one always does.
 *
 *   node test/support/replica-dies-after-save.ts serve
 */
import { PostgresTaskStore } from '../../src/store/postgres/task-store.ts';
import { stateOf, TERMINAL_STATES } from '../../src/store/task-rows.ts';

const save = PostgresTaskStore.prototype.update;
PostgresTaskStore.prototype.update = async function (this: PostgresTaskStore, ...args: Parameters<typeof save>) {
  await save.apply(this, args);
  if (!TERMINAL_STATES.includes(stateOf(args[1]))) return;
  console.log(`saved task ${args[0]} as ended: kill -9`);
  process.kill(process.pid, 'SIGKILL');
};

await import('../../src/cli/main.ts');
