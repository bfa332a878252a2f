import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentEnvelope, GatewayEnvelope, MAX_CONTEXT_ID_CHARS, MAX_ID_CHARS } from '../../src/logos/envelope.ts';
import { scalarPredicate } from '../../src/logos/scalar-predicate.ts';

/** Values around every bound and pattern the envelopes' scalar fields have, and of every JSON type. */
const VALUES: unknown[] = [
  undefined,
  null,
  true,
  false,
  0,
  1,
  -1,
  1.5,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  '',
  '0',
  '42',
  '-1',
  '1'.repeat(39),
  '1'.repeat(40),
  'a',
  'a'.repeat(MAX_ID_CHARS),
  'a'.repeat(MAX_ID_CHARS + 1),
  'a'.repeat(MAX_CONTEXT_ID_CHARS),
  'a'.repeat(MAX_CONTEXT_ID_CHARS + 1),
  '😀'.repeat(64),
  '😀'.repeat(65),
  'A'.repeat(43),
  'A'.repeat(42) + '=',
  'A'.repeat(44),
  '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  '00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01',
  '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\n',
  'task_request',
  'task_result',
  'working',
  'completed',
  'canceled',
  'submitted',
  'ab'.repeat(32),
  'AB'.repeat(32),
  [],
  {},
  ['a'],
  { a: 1 },
];

const scalarFields = [...GatewayEnvelope.options, ...AgentEnvelope.options].flatMap((variant) =>
  Object.entries(variant.shape as Record<string, z.ZodType>).map(
    ([field, schema]) => [`${variant.shape.type.value}.${field}`, schema] as const,
  ),
);

describe('scalarPredicate', () => {
  it.each(scalarFields)('gives the verdict of safeParse for %s, value by value', (_field, schema) => {
    const predicate = scalarPredicate(schema);
    for (const value of VALUES) expect([value, predicate(value)]).toEqual([value, schema.safeParse(value).success]);
  });

  it('reads the envelopes scalar fields without zod (the fields zod alone can judge aside)', () => {
    // A compiled predicate never calls safeParse: counted through a spy on each field's schema.
    const fallbacks = scalarFields.filter(([, schema]) => {
      let calls = 0;
      const spied = Object.create(schema, {
        safeParse: { value: (value: unknown) => (calls++, schema.safeParse(value)) },
      }) as z.ZodType;
      scalarPredicate(spied)('task-42');
      return calls > 0;
    });
    expect(fallbacks.map(([field]) => field).sort()).toEqual([
      'cancelled.message',
      'cancelled.refund',
      'task_input.message',
      'task_input.params',
      'task_request.message',
      'task_request.params',
      'task_request.payment',
      'task_result.artifacts',
      'task_result.error',
      'task_result.message',
      'task_result.refund',
      'task_status.artifact',
      'task_status.message',
    ]);
  });

  it('keeps safeParse for a check or schema it does not know, and agrees with it elsewhere too', () => {
    const schemas: z.ZodType[] = [
      z.string().email(),
      z.string().startsWith('a'),
      z.coerce.number(),
      z.number().multipleOf(2),
      z.number().lt(3).gte(-2),
      z.string().regex(/a/g),
      z.array(z.string()),
      z.enum(['working', 'completed', 'failed']).exclude(['failed']),
      z.literal(['a', 1]).optional(),
      // Format schemas: the schema is a check of its own, beside its list of checks.
      z.int(),
      z.int().min(0),
      z.uuid(),
      z.uuid().max(40),
      z.hex(),
    ];
    for (const schema of schemas) {
      const predicate = scalarPredicate(schema);
      // Twice each: a global pattern must not remember where its last test stopped.
      for (const value of [...VALUES, 'a@b.co', 'ba', 2, -2, 3, 2 ** 60, 'zz', '0af7', ['a'], 'a', 'a'])
        expect([value, predicate(value)]).toEqual([value, schema.safeParse(value).success]);
    }
  });
});
