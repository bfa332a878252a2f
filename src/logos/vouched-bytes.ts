/**
 * Bytes this process encoded from an envelope that its schema would return unchanged (envelope.ts, `encodeOwn`),
 * with the JSON they hold. A decoder in the same process that is given them (the memory transport hands over a copy,
 * which keeps the mark) parses that JSON into a fresh object instead of running the schema again: in process, the
 * schema cost more than anything else about a request or a reply. The mark is a symbol-keyed property of the bytes
 * object itself, so bytes from anywhere else (a network, a test, another binding's encoder) are never taken for ours,
 * and the mark goes with its bytes (a WeakMap would do the same at several times the cost of a property). Nothing
 * writes into an envelope's bytes once encoded; were anything to, a decoder would still get the JSON that was
 * vouched for.
 */
interface Vouched {
  /** The schema the JSON satisfies: a decoder with any other validates as usual. */
  readonly schema: object;
  readonly json: string;
}

const VOUCHED = Symbol('vouched envelope JSON');
type Marked = Uint8Array & { [VOUCHED]?: Vouched };

export function vouch(bytes: Uint8Array, schema: object, json: string): void {
  (bytes as Marked)[VOUCHED] = { schema, json };
}

/** The JSON of `bytes` when this process vouched for them under `schema`, else undefined. */
export function vouchedJson(bytes: Uint8Array, schema: object): string | undefined {
  const entry = (bytes as Marked)[VOUCHED];
  return entry?.schema === schema ? entry.json : undefined;
}

/**
 * A copy of `payload` that keeps its mark. A Buffer copy of a small payload is a view of Node's shared allocation
 * pool rather than an ArrayBuffer of its own, which costs a fraction of one to make and to collect.
 */
export function copyPayload(payload: Uint8Array): Uint8Array {
  const copy: Marked = Buffer.from(payload);
  const entry = (payload as Marked)[VOUCHED];
  if (entry) copy[VOUCHED] = entry;
  return copy;
}
