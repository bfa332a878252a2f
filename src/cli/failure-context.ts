/**
 * Where the running command's ports and addresses come from, so that a failure names the setting at fault. Each
 * command sets it as it learns them; the one-line report of a failure (commands.ts) and a second signal read it.
 */
import type { FailureContext } from './errors.ts';

let current: FailureContext = { prefix: 'logos-a2a' };

export function failureContext(): FailureContext {
  return current;
}

export function setFailureContext(context: FailureContext): void {
  current = context;
}
