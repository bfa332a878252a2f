/** Stopping the child processes tests start: agents, gateways, the devnet. */
import type { ChildProcess } from 'node:child_process';

/** Sends `signal` to a child that is still running and resolves once it has exited. */
export async function stopChild(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}
