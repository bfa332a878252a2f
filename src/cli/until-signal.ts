/** How a long-running command (serve, demo, agent, devnet) learns that it is asked to stop. */
import { failureContext } from './failure-context.ts';

const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

/**
 * Resolves at the first SIGINT or SIGTERM, so the caller can stop in order. From then on, another of either signal
 * ends the process at once (with the usual 128 + signal number), in case the orderly stop hangs. Called before a
 * command starts anything: a signal during the start stops it in order as soon as it has started, and none is missed
 * between printing "Ctrl-C stops it" and listening for it.
 */
export function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    // One listener per signal for good: removing and re-adding them would drop a signal already on its way.
    let stopping = false;
    const onSignal = (signal: keyof typeof SIGNAL_EXIT_CODES) => {
      if (!stopping) {
        stopping = true;
        resolve();
        return;
      }
      process.stderr.write(`${failureContext().prefix}: ${signal} again, stopping at once\n`);
      process.exit(SIGNAL_EXIT_CODES[signal]);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
