import { describe, expect, it } from 'vitest';
import { shallowJson } from '../../src/a2a/shallow-json.ts';

const VALID = [
  '0',
  '-1.5e+3',
  '"a \\" \\\\ \\/ \\b\\f\\n\\r\\t \\u00e9 ["',
  ' { "a" : [ 1 , true , false , null , { } , [ ] ] , "b" : { "c" : "d" } } ',
  '[[],[[]],{"":[]}]',
  '{"__proto__":{"x":1}}',
  '\t\r\n[1]\n',
];

const INVALID = [
  '',
  ' ',
  '[',
  ']',
  '[1,]',
  '{"a":1,}',
  '{"a" 1}',
  '{a:1}',
  '{"a":1',
  '[1 2]',
  '01',
  '1.',
  '.5',
  '+1',
  'tru',
  'truex',
  'nul',
  '"unterminated',
  '"bad \\x escape"',
  '"bad \\u12g4"',
  '"raw \n newline"',
  '[1]]',
  '{"a":1}}',
  '[}',
  '{]',
  '1 2',
  '\u00a0[1]',
  "['single']",
];

describe('shallowJson', () => {
  it.each(VALID)('reads %j as JSON.parse does when nothing is too deep', (text) => {
    expect(shallowJson(text, 64)).toEqual(JSON.parse(text));
  });

  it.each(INVALID)('refuses %j, which JSON.parse refuses too', (text) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(shallowJson(text, 64)).toBeUndefined();
  });

  it('replaces what is deeper than the limit by null, keeping the levels above', () => {
    expect(shallowJson('{"id":7,"params":{"a":[[1,[2]],3],"b":"[[["}}', 3)).toEqual({
      id: 7,
      params: { a: [null, 3], b: '[[[' },
    });
    expect(shallowJson('[[[]],{"x":{}}]', 1)).toEqual([null, null]);
  });

  it('a million levels: read in one pass, the broken form refused', () => {
    const levels = 1_000_000;
    const deep = `{"jsonrpc":"2.0","id":"x","params":${'['.repeat(levels)}${']'.repeat(levels)}}`;
    // A recursive reader would overflow the stack here; a quadratic one would run for hours, past the test's
    // timeout. No wall-clock bound of our own: on a loaded machine it would fail a correct reader.
    expect(shallowJson(deep, 1)).toEqual({ jsonrpc: '2.0', id: 'x', params: null });
    expect((shallowJson(deep, 64) as { id: string }).id).toBe('x');
    expect(shallowJson(deep.slice(0, -1), 64)).toBeUndefined();
  });
});
