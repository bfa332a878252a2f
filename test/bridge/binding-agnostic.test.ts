/**
 * The core knows no wire binding's specifics (docs/architecture.md §2, §3): what differs between the bindings agents
 * speak is behind `WireBinding` (src/logos/bindings/), chosen per agent by its dialect. No module of src/bridge/
 * imports a binding's implementation or the seed dialect's helpers (the `Dialect` type aside), nor tests a dialect.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const bridge = fileURLToPath(new URL('../../src/bridge', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

it('no module of the core imports a wire binding’s implementation or tests a dialect', () => {
  const found: string[] = [];
  for (const file of sourceFiles(bridge)) {
    const text = readFileSync(file, 'utf8');
    const where = relative(bridge, file);
    for (const [statement, , specifier] of text.matchAll(/import\s+(type\s+)?[^;]*?from\s+'([^']+)'/g)) {
      const typeOnly = statement.startsWith('import type');
      if (/logos\/bindings\/(?!binding-of\.ts|wire-binding\.ts)/.test(specifier!)) found.push(`${where}: ${specifier}`);
      if (specifier!.endsWith('logos/seed-dialect.ts') && !typeOnly) found.push(`${where}: ${specifier}`);
    }
    for (const [test] of text.matchAll(/(dialect|dialectOf\([^)]*\))\s*[!=]==\s*'[a-z]+'/g))
      found.push(`${where}: ${test}`);
  }
  expect(found).toEqual([]);
});
