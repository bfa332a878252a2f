/**
 * The process's one async context: OpenTelemetry's `Context`, kept in one AsyncLocalStorage, which also carries the
 * log context (log-context.ts) as one of its values. Each AsyncLocalStorage in use makes Node's promise hook copy its
 * store onto every promise created (a field each, and the work of the copy), and a request makes about a hundred:
 * one storage instead of two (OpenTelemetry's own manager and the log context's) halves that.
 *
 * Registered on first use, by tracing or by the log context, whichever comes first; the tracer provider is then
 * registered without a manager of its own.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { context, ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';

class OneStorageContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();

  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    active: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.storage.run(active, thisArg === undefined ? fn : fn.bind(thisArg), ...args);
  }

  /** Functions only: nothing here binds event emitters (OpenTelemetry's instrumentations, which do, are not used). */
  bind<T>(active: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const call = (receiver: unknown, args: unknown[]) =>
      this.with(active, () => (target as (...args: unknown[]) => unknown).apply(receiver, args));
    return function (this: unknown, ...args: unknown[]) {
      return call(this, args);
    } as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.storage.disable();
    return this;
  }
}

let registered = false;

/** Makes sure the process's context manager is this module's (once); `context` from the API then uses it. */
export function useOneAsyncContext(): void {
  if (registered) return;
  registered = true;
  context.setGlobalContextManager(new OneStorageContextManager());
}
