/**
 * `npm run build` bundles the CLI's commands into one file of dist/: a start then reads one file instead of resolving
 * some 1,200 modules one by one (docs/performance.md, "Cold start"). Checked on a fresh build, as CI makes one.
 */
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { distIsFresh } from './dist.ts';

const built = (path: string) => readFileSync(fileURLToPath(new URL(`../../dist/cli/${path}`, import.meta.url)), 'utf8');

describe.runIf(distIsFresh())('the built CLI', () => {
  it('is one bundle: its commands import only Node built-ins, and load only the native addons at run time', () => {
    const commands = built('commands.js');
    const imported = [...commands.matchAll(/^import\b[^;'"]*?["']([^"']+)["']/gm)].map((match) => match[1]!);
    expect(imported.length).toBeGreaterThan(0);
    const builtin = (specifier: string) => specifier.startsWith('node:') || builtinModules.includes(specifier);
    expect(imported.filter((specifier) => !builtin(specifier))).toEqual([]);
    // The entry point only turns the compile cache on before it loads the bundle, so that the cache covers it.
    const entry = built('main.js');
    expect(entry).toMatch(/enableCompileCache\(\)[\s\S]*import\(['"]\.\/commands\.js['"]\)/);
  });
});
