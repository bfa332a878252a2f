/**
 * `npm run build` bundles the CLI's commands with esbuild into dist/cli/commands.js and chunks beside it, one for each
 * part loaded on demand (the gateway, the devnet, the Redis client...): a start reads a few files instead of resolving
 * some 1,200 modules one by one, and the devnet's process never reads the gateway's (docs/performance.md, "Cold
 * start"). Checked on a fresh build, as CI makes one.
 */
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { distIsFresh } from './dist.ts';

const built = (file: string) => readFileSync(fileURLToPath(new URL(`../../dist/cli/${file}`, import.meta.url)), 'utf8');
/** esbuild's chunk names: a name, a dash and an eight-character hash. */
const CHUNK = /^\.\/[\w.-]+-[A-Z0-9]{8}\.js$/;

/**
 * The specifiers a built file imports: statically (`import … from`, `import "…"`, each on a line of its own) and the
 * files of this folder it imports on demand, as esbuild writes them (`import("./….js")`; the packages' JSDoc type imports
 * use single quotes).
 */
function importsOf(code: string): { loaded: string[]; onDemand: string[] } {
  const loaded = [...code.matchAll(/^import\b[^;'"]*?["']([^"']+)["']/gm)].map((match) => match[1]!);
  const onDemand = [...code.matchAll(/\bimport\("(\.\/[^"]+\.js)"\)/g)].map((match) => match[1]!);
  return { loaded, onDemand };
}

describe.runIf(distIsFresh())('the built CLI', () => {
  it('is bundled: from its commands on, only Node built-ins and chunks of the bundle load at start', () => {
    const builtin = (specifier: string) => specifier.startsWith('node:') || builtinModules.includes(specifier);
    const seen = new Set<string>();
    const loadedAtStart = new Set<string>();
    const visit = (file: string, atStart: boolean) => {
      if (atStart) loadedAtStart.add(file);
      if (seen.has(file)) return;
      seen.add(file);
      const code = built(file);
      // A CommonJS package imported on demand keeps only its default export in a chunk: a caller asking for a named
      // one gets undefined (undici and the OTLP exporter are therefore imported statically by a module of ours that
      // is the one loaded on demand). Only @opentelemetry/resources' machine-id readers are left so: its host
      // detector loads them, and the gateway does not use it.
      if (!file.startsWith('getMachineId-'))
        expect(/^export default require_\w+\(\);$/m.test(code), `${file} exports only a CommonJS default`).toBe(false);
      const { loaded, onDemand } = importsOf(code);
      for (const specifier of [...loaded.filter((s) => s.startsWith('.')), ...onDemand]) {
        // A relative import is always a chunk: never one of tsc's modules, which would load the rest one by one.
        expect(specifier, `imported by ${file}`).toMatch(CHUNK);
      }
      expect(
        loaded.filter((s) => !s.startsWith('.') && !builtin(s)),
        `packages ${file} loads at start`,
      ).toEqual([]);
      for (const specifier of loaded.filter((s) => s.startsWith('.'))) visit(specifier.slice(2), atStart);
      for (const specifier of onDemand) visit(specifier.slice(2), false);
    };
    visit('commands.js', true);
    expect(seen.size).toBeGreaterThan(2);
    // The gateway is loaded on demand, so that `logos-a2a devnet` (the demo's devnet process) never reads it.
    const gatewayChunks = [...seen].filter((file) => /^gateway-/.test(file));
    expect(gatewayChunks).toHaveLength(1);
    expect(loadedAtStart.has(gatewayChunks[0]!)).toBe(false);
    // The entry point turns the compile cache on before it loads the commands, so that the cache covers them.
    expect(built('main.js')).toMatch(/enableCompileCache\(\)[\s\S]*import\(['"]\.\/commands\.js['"]\)/);
  });
});
