/**
 * What a file written "with stock packages only" imports, for the tests that hold the examples and stock clients to
 * it: every module it names, however it names it.
 */

/**
 * Every module `source` names: `… from '…'` (imports and re-exports, over any number of lines), `import '…'`, and
 * `import(…)` / `require(…)`, whose argument is given as written when it is not a string literal (so that it is
 * never taken for a package).
 */
export function importedSpecifiers(source: string): string[] {
  const literal = (pattern: RegExp) => [...source.matchAll(pattern)].map((match) => match[2]!);
  const calls = [...source.matchAll(/\b(?:import|require)\s*\(\s*([^),]*)/g)].map((match) => {
    const argument = match[1]!.trim();
    return /^(['"`])[^'"`$]+\1$/.test(argument) ? argument.slice(1, -1) : argument;
  });
  return [...literal(/\bfrom\s*(['"])([^'"]+)\1/g), ...literal(/\bimport\s*(['"])([^'"]+)\1/g), ...calls];
}

/** Node's built-ins and the published packages a third party writes a Waku agent or client with. */
export const STOCK_SPECIFIER = /^(node:|@waku\/|@noble\/|@scure\/|@libp2p\/|@chainsafe\/|@multiformats\/)/;
