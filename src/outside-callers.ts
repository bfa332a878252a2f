/**
 * Runs a function in the async context of this module's loading, at start, outside any request. For timers shared by
 * many callers (keep-alives, silence timeouts): such a timer outlives whichever caller happens to start it, so it must
 * keep none of that caller's async context (log fields, trace, span) alive, nor hand it to everything it runs.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export const outsideAnyCaller: <R>(fn: () => R) => R = AsyncLocalStorage.snapshot();
