/** Stopping the child processes tests start: agents, gateways, the devnet. */
import type { ChildProcess } from 'node:child_process';

/** Sends `signal` to a child that is still running and resolves once it has exited. */
export async function stopChild(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

export interface Printed {
  /** The first match of the pattern in what the child printed; undefined when it exited first. */
  match: RegExpExecArray | undefined;
  /** Its exit code, when it exited before printing the pattern. */
  code: number | null;
  /** Everything it printed so far, stdout and stderr together. */
  output: string;
}

/**
 * Waits until `child` prints something matching `pattern` (on stdout or stderr), or exits; fails after `timeoutMs`
 * with what it printed, naming it `what`.
 */
export function untilPrinted(child: ChildProcess, pattern: RegExp, what: string, timeoutMs = 40_000): Promise<Printed> {
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start:\n${output}`)), timeoutMs);
    const read = (chunk: Buffer) => {
      output += chunk;
      const match = pattern.exec(output);
      if (!match) return;
      clearTimeout(timer);
      resolve({ match, code: null, output });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ match: undefined, code, output });
    });
  });
}
