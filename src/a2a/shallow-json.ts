/**
 * JSON text nested past a limit, read without recursing and without building what lies past the limit: whether it is
 * JSON at all (a parse error and a too-deep request are different refusals), and what its upper levels hold (the
 * JSON-RPC `id` to answer under). JSON.parse would build every level, which for a 1 MiB body of brackets costs about
 * a second of CPU, and leave a value that no recursive walk may touch.
 */

/** JSON whitespace; `\s` also takes characters JSON does not. */
const WHITESPACE = /[ \t\n\r]*/y;
const SCALAR = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
const ESCAPED = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const HEX4 = /[0-9a-fA-F]{4}/y;

type Expect = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'colon' | 'comma-or-close';

/**
 * The value of `text` with every array and object deeper than `maxDepth` levels replaced by null, or undefined when
 * `text` is not JSON. One pass with a stack of its own; JSON.parse then sees only the upper levels.
 */
export function shallowJson(text: string, maxDepth: number): unknown {
  const open: string[] = [];
  const kept: string[] = [];
  /** Where the text copied into `kept` resumes; while inside a container past the limit, where that one began. */
  let copyFrom = 0;
  let expect = 'value' as Expect;
  let i = 0;
  const skipWhitespace = () => {
    WHITESPACE.lastIndex = i;
    WHITESPACE.exec(text);
    i = WHITESPACE.lastIndex;
  };
  const closes = (char: string | undefined) => (open.at(-1) === '[' ? char === ']' : char === '}');
  for (skipWhitespace(); i < text.length; skipWhitespace()) {
    const char = text[i]!;
    if (expect === 'comma-or-close') {
      if (open.length === 0) return undefined; // something after the top-level value
      if (char === ',') {
        expect = open.at(-1) === '[' ? 'value' : 'key';
        i++;
        continue;
      }
      if (!closes(char)) return undefined;
      close();
      continue;
    }
    if (expect === 'colon') {
      if (char !== ':') return undefined;
      expect = 'value';
      i++;
      continue;
    }
    if ((expect === 'value-or-close' || expect === 'key-or-close') && closes(char)) {
      close();
      continue;
    }
    if (char === '"') {
      if (!skipString()) return undefined;
      expect = expect === 'key' || expect === 'key-or-close' ? 'colon' : 'comma-or-close';
      continue;
    }
    if (expect === 'key' || expect === 'key-or-close') return undefined;
    if (char === '[' || char === '{') {
      open.push(char);
      if (open.length === maxDepth + 1) {
        kept.push(text.slice(copyFrom, i));
        copyFrom = i;
      }
      expect = char === '[' ? 'value-or-close' : 'key-or-close';
      i++;
      continue;
    }
    SCALAR.lastIndex = i;
    if (!SCALAR.exec(text)) return undefined;
    i = SCALAR.lastIndex;
    expect = 'comma-or-close';
  }
  if (expect !== 'comma-or-close' || open.length > 0) return undefined;
  kept.push(text.slice(copyFrom));
  return JSON.parse(kept.join(''));

  function close(): void {
    if (open.length === maxDepth + 1) {
      kept.push('null');
      copyFrom = i + 1;
    }
    open.pop();
    i++;
    expect = 'comma-or-close';
  }

  /** Past the string that starts at `i`; false when it is not a JSON string. */
  function skipString(): boolean {
    for (i++; i < text.length;) {
      const code = text.charCodeAt(i++);
      if (code === 0x22 /* " */) return true;
      if (code < 0x20) return false;
      if (code !== 0x5c /* \ */) continue;
      const escaped = text[i++];
      if (escaped === 'u') {
        HEX4.lastIndex = i;
        if (!HEX4.test(text)) return false;
        i += 4;
      } else if (escaped === undefined || !ESCAPED.has(escaped)) {
        return false;
      }
    }
    return false;
  }
}
