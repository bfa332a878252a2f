import { describe, expect, it } from 'vitest';
import { newRequestId } from '../../src/observability/request-id.ts';

describe('newRequestId', () => {
  it('is a random UUID (version 4, variant 10), in lowercase, each one new', () => {
    const ids = Array.from({ length: 2000 }, newRequestId);
    for (const id of ids) expect(id).toMatch(/^[\da-f]{8}-[\da-f]{4}-4[\da-f]{3}-[89ab][\da-f]{3}-[\da-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('draws every hex digit in every random position', () => {
    const seen = Array.from({ length: 36 }, () => new Set<string>());
    for (let n = 0; n < 2000; n++) [...newRequestId()].forEach((char, at) => seen[at]!.add(char));
    const random = [...Array(36).keys()].filter((at) => ![8, 13, 14, 18, 19, 23].includes(at));
    for (const at of random) expect(seen[at]!.size, `position ${at}`).toBe(16);
    expect([...seen[19]!].sort()).toEqual(['8', '9', 'a', 'b']);
  });
});
