/**
 * OpenTelemetry's `Context` with its few values in one small array, copied on each change. The API's own context
 * copies a Map for each `setValue`, and a request derives several (its log context, a span for each hop): an array of
 * a few entries costs a fraction of that. Contexts are opaque to their readers (getValue, setValue, deleteValue), so
 * either kind serves wherever the other does.
 */
import { ROOT_CONTEXT, type Context } from '@opentelemetry/api';

class FlatContext implements Context {
  /** Keys and values, alternating; never changed once made. */
  private readonly entries: readonly unknown[];

  constructor(entries: readonly unknown[]) {
    this.entries = entries;
  }

  getValue(key: symbol): unknown {
    const at = this.indexOf(key);
    return at === -1 ? undefined : this.entries[at + 1];
  }

  setValue(key: symbol, value: unknown): Context {
    const entries = this.entries.slice();
    const at = this.indexOf(key);
    if (at === -1) entries.push(key, value);
    else entries[at + 1] = value;
    return new FlatContext(entries);
  }

  deleteValue(key: symbol): Context {
    const at = this.indexOf(key);
    return new FlatContext(at === -1 ? this.entries : [...this.entries.slice(0, at), ...this.entries.slice(at + 2)]);
  }

  private indexOf(key: symbol): number {
    const entries = this.entries;
    for (let i = 0; i < entries.length; i += 2) if (entries[i] === key) return i;
    return -1;
  }
}

const EMPTY = new FlatContext([]);

/** `base` with `key` set to `value`: a flat context when `base` is the root (empty), else as `base` makes it. */
export function contextWithValue(base: Context, key: symbol, value: unknown): Context {
  return base === ROOT_CONTEXT ? EMPTY.setValue(key, value) : base.setValue(key, value);
}
