/**
 * A stream's consumer can go away while the stream waits for the task's next change. The HTTP layer puts an
 * AbortSignal in the call context's state under this key and aborts it when the client disconnects; the handler
 * ends its wait then, instead of at the task's next change.
 */
import type { ServerCallContext } from '@a2a-js/sdk/server';

export const CALL_ABORT_KEY = 'logos-a2a:call-abort';

export function callAbortSignal(context: ServerCallContext): AbortSignal | undefined {
  const signal = context.state.get(CALL_ABORT_KEY);
  return signal instanceof AbortSignal ? signal : undefined;
}
