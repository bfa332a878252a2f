/**
 * The outside agents (and callers) of the peer bindings are the other side: written from the bindings' descriptions with Node and
 * published packages only, never with this project's code, or a test against them would test the code against
 * itself.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { STOCK_SPECIFIER, importedSpecifiers } from '../../support/stock-imports.ts';

const FOLDER = new URL('../../support/peer-agents/', import.meta.url);

describe('the peer agents', () => {
  it('import only Node, published packages and each other', () => {
    const files = readdirSync(FOLDER).filter((name) => name.endsWith('.ts'));
    expect(files).toEqual(
      expect.arrayContaining([
        'logos-agent.ts',
        'pilot.ts',
        'lp-0008.ts',
        'relay-node.ts',
        'peer-crypto.ts',
        'peer-callers.ts',
      ]),
    );
    for (const file of files) {
      const imports = importedSpecifiers(readFileSync(new URL(file, FOLDER), 'utf8'));
      expect(imports.length).toBeGreaterThan(1);
      for (const specifier of imports) {
        if (specifier.startsWith('./')) expect(files).toContain(specifier.slice(2));
        else expect(specifier).toMatch(STOCK_SPECIFIER);
      }
    }
  });
});
