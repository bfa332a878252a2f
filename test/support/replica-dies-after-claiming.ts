/**
 * `logos-a2a ARGS` (the CLI from the sources) as a replica that claims the commands other replicas forward to it and
 * kills itself with SIGKILL once it has claimed `LOGOS_A2A_TEST_DIE_AFTER_CLAIMING` of them (default 1), having acted
 * on none: the claims are in the database, nothing was sent to the agent or written to the task. A kill from outside
 * cannot hit that window; this one always does.
 *
 *   node test/support/replica-dies-after-claiming.ts serve
 */
import { ReplicaLink } from '../../src/bridge/replica-link.ts';

const dieAfter = Number(process.env.LOGOS_A2A_TEST_DIE_AFTER_CLAIMING ?? 1);
let claimed = 0;
const serve = ReplicaLink.prototype.serve;
ReplicaLink.prototype.serve = function (this: ReplicaLink, owns: Parameters<typeof serve>[0]) {
  return serve.call(this, owns, (taskId, command) => {
    console.log(`claimed a ${command.kind} for task ${taskId}`);
    if (++claimed >= dieAfter) {
      console.log('claimed enough: kill -9');
      process.kill(process.pid, 'SIGKILL');
    }
    // Claimed, and never run.
    return new Promise(() => undefined);
  });
};

await import('../../src/cli/main.ts');
