/**
 * The process's one async context: OpenTelemetry's `Context`, kept in one AsyncLocalStorage, which also carries the
 * log context (log-context.ts) as one of its values. Each AsyncLocalStorage in use makes Node's promise hook copy its
 * store onto every promise created (a field each, and the work of the copy), and a request makes about a hundred:
 * one storage instead of two (OpenTelemetry's own manager and the log context's) halves that.
 *
 * Registered on first use, by tracing or by the log context, whichever comes first; the tracer provider is then
 * registered without a manager of its own.
 *
 * This module's own readers (activeContext, runInContext) go to the storage straight: the API's `context` looks up
 * its global manager and checks the API version on every call, several times a request.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { context, ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';

const storage = new AsyncLocalStorage<Context>();
let registered = false;
/** Whether the API's manager is this module's: it is unless another was registered first (the API keeps the first). */
let direct = false;

class OneStorageContextManager implements ContextManager {
  active(): Context {
    return storage.getStore() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    active: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return storage.run(active, thisArg === undefined ? fn : fn.bind(thisArg), ...args);
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

  /** Called by the API's `context.disable()`, which also unregisters it: the readers below then ask the API again. */
  disable(): this {
    direct = false;
    storage.disable();
    return this;
  }
}

/** Makes sure the process's context manager is this module's (once); `context` from the API then uses it. */
export function useOneAsyncContext(): void {
  if (registered) return;
  registered = true;
  direct = context.setGlobalContextManager(new OneStorageContextManager());
}

/** The active context, as `context.active()` answers it. */
export function activeContext(): Context {
  return direct ? (storage.getStore() ?? ROOT_CONTEXT) : context.active();
}

/** Runs `fn(...args)` in `active`, as `context.with(active, fn, undefined, ...args)` does. */
export function runInContext<A extends unknown[], R>(active: Context, fn: (...args: A) => R, ...args: A): R {
  return direct ? storage.run(active, fn, ...args) : context.with(active, fn, undefined, ...args);
}
