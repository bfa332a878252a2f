/** The flat context answers as the API's own context does, for every sequence of changes. */
import { createContextKey, ROOT_CONTEXT, type Context } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { contextWithValue } from '../../src/observability/flat-context.ts';

const keys = [createContextKey('a'), createContextKey('b'), createContextKey('c')];

function values(context: Context): unknown[] {
  return keys.map((key) => context.getValue(key));
}

describe('contextWithValue', () => {
  it('makes from the root a context that reads, sets and deletes as the API’s own', () => {
    let flat = contextWithValue(ROOT_CONTEXT, keys[0]!, 1);
    let own = ROOT_CONTEXT.setValue(keys[0]!, 1);
    expect(flat).not.toBeInstanceOf(own.constructor);
    const steps: ['set' | 'delete', number, unknown][] = [
      ['set', 1, 'x'],
      ['set', 0, 2],
      ['delete', 2, undefined],
      ['set', 2, { deep: true }],
      ['delete', 0, undefined],
      ['set', 0, undefined],
      ['delete', 1, undefined],
      ['set', 1, null],
    ];
    for (const [op, index, value] of steps) {
      const before = values(flat);
      const key = keys[index]!;
      const next = op === 'set' ? flat.setValue(key, value) : flat.deleteValue(key);
      own = op === 'set' ? own.setValue(key, value) : own.deleteValue(key);
      expect(values(flat)).toEqual(before);
      flat = next;
      expect(values(flat)).toEqual(values(own));
    }
  });

  it('leaves a context that is not the root to make its own', () => {
    const base = ROOT_CONTEXT.setValue(keys[0]!, 1);
    const made = contextWithValue(base, keys[1]!, 2);
    expect(made).toBeInstanceOf(base.constructor);
    expect(values(made)).toEqual([1, 2, undefined]);
  });
});
