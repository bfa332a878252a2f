/**
 * A plain predicate with the verdict of a scalar zod schema: `schema.safeParse(value).success`, without zod's parse
 * context, issue list and result objects for each value. Vouching an envelope checks each of its scalar fields
 * (envelope.ts `encodeOwn`); through `safeParse` that was the largest cost of encoding one.
 *
 * Only the shapes the envelope's scalar fields use are read (strings with length bounds and patterns, literals,
 * enums, integers with bounds, booleans, unknowns, optional and default wrappers); any other schema, or a check this
 * does not know, keeps `safeParse`. Held to `safeParse` value by value by its test.
 */
import type { z } from 'zod';

type Predicate = (value: unknown) => boolean;
/** A check's verdict, or undefined when only the schema can say (see `stringCheck`). */
type Check = (value: unknown) => boolean | undefined;

interface CheckDef {
  check: string;
  minimum?: number;
  maximum?: number;
  format?: string;
  pattern?: RegExp;
  value?: number;
  inclusive?: boolean;
}

interface SchemaDef {
  type: string;
  checks?: { _zod: { def: CheckDef } }[];
  values?: unknown[];
  entries?: Record<string, unknown>;
  innerType?: z.ZodType;
  coerce?: boolean;
}

export function scalarPredicate(schema: z.ZodType): Predicate {
  return compiled(schema) ?? ((value) => schema.safeParse(value).success);
}

function compiled(schema: z.ZodType): Predicate | undefined {
  const def = schema._zod.def as unknown as SchemaDef;
  // A format schema (`z.int()`, `z.uuid()`, …) is a check itself, beside its `checks`: zod's to judge.
  if (def.coerce || schema._zod.traits.has('$ZodCheck')) return undefined;
  switch (def.type) {
    case 'string':
      return withChecks(schema, def, (value) => typeof value === 'string', stringCheck);
    case 'number':
      return withChecks(schema, def, (value) => typeof value === 'number' && Number.isFinite(value), numberCheck);
    case 'boolean':
      return (value) => typeof value === 'boolean';
    case 'unknown':
      return () => true;
    case 'literal': {
      const values = def.values ?? [];
      return (value) => values.includes(value);
    }
    case 'enum': {
      if (def.checks?.length) return undefined;
      const values = new Set(Object.values(def.entries ?? {}));
      return (value) => values.has(value);
    }
    case 'optional': {
      const inner = compiled(def.innerType!);
      return inner && ((value) => value === undefined || inner(value));
    }
    case 'default': {
      // A default fills in an absent value; a value present is the inner schema's to judge.
      const inner = compiled(def.innerType!);
      return inner && ((value) => value === undefined || inner(value));
    }
    default:
      return undefined;
  }
}

/**
 * The type's test, then each check in order, the schema's own verdict when a check is in doubt; undefined when a
 * check is not known here.
 */
function withChecks(
  schema: z.ZodType,
  def: SchemaDef,
  isType: Predicate,
  check: (def: CheckDef) => Check | undefined,
): Predicate | undefined {
  const checks: Check[] = [];
  for (const { _zod } of def.checks ?? []) {
    const predicate = check(_zod.def);
    if (!predicate) return undefined;
    checks.push(predicate);
  }
  return (value) => {
    if (!isType(value)) return false;
    for (const predicate of checks) {
      const verdict = predicate(value);
      if (verdict === undefined) return schema.safeParse(value).success;
      if (!verdict) return false;
    }
    return true;
  };
}

/**
 * Lengths in UTF-16 units, where they decide: zod counts a string's code points (one or two units each), so a string
 * of fewer units than a minimum, or no more units than a maximum, is judged the same either way, and so is one of at
 * least twice a minimum's units; a length in between (an ID of emoji near its bound) is left to the schema.
 */
function stringCheck(def: CheckDef): Check | undefined {
  const { minimum, maximum } = def;
  switch (def.check) {
    case 'min_length':
      return (value) => {
        const units = (value as string).length;
        return units < minimum! ? false : units >= 2 * minimum! || undefined;
      };
    case 'max_length':
      return (value) => (value as string).length <= maximum! || undefined;
    case 'string_format': {
      if (def.format !== 'regex' || !def.pattern) return undefined;
      const pattern = def.pattern;
      return (value) => {
        pattern.lastIndex = 0; // a global or sticky pattern remembers where it stopped
        return pattern.test(value as string);
      };
    }
    default:
      return undefined;
  }
}

function numberCheck(def: CheckDef): Predicate | undefined {
  switch (def.check) {
    case 'number_format':
      return def.format === 'safeint' ? (value) => Number.isSafeInteger(value) : undefined;
    case 'greater_than':
      return def.inclusive ? (value) => (value as number) >= def.value! : (value) => (value as number) > def.value!;
    case 'less_than':
      return def.inclusive ? (value) => (value as number) <= def.value! : (value) => (value as number) < def.value!;
    default:
      return undefined;
  }
}
