/**
 * The layering of docs/architecture.md, enforced: every import in src/ stays in its folder or points to a folder
 * below it, and no module imports itself through others (no import cycles).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../src', import.meta.url));

/**
 * Top to bottom. `agent.ts` (the package's public module) sits on top; the runtimes' entries (`worker.ts` with
 * `worker/` for Cloudflare Workers, `cli/` for Node) next to it; `keep-alive.ts`, `time-limit.ts`, `address-policy.ts`,
 * `uuid.ts`, `random-pool.ts`,
 * `outside-callers.ts`, `json-object.ts` and `lane.ts`
 * are shared leaves.
 */
const LAYERS = [
  'agent.ts',
  'worker.ts',
  'worker',
  'cli',
  'gateway',
  'publish',
  'a2a',
  'bridge',
  'push',
  'logos',
  'devnet',
  'lez',
  'store',
  'observability',
  'keep-alive.ts',
  'time-limit.ts',
  'address-policy.ts',
  'uuid.ts',
  'random-pool.ts',
  'outside-callers.ts',
  'json-object.ts',
  'lane.ts',
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Relative imports and re-exports of source files, resolved (type-only ones count too: they are dependencies of
 * meaning). The package's data outside src/ (openapi/openapi.json, which the Worker bundles) is in no layer.
 */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)]
    .map((match) => resolve(dirname(file), match[1]!))
    .filter((target) => !relative(src, target).startsWith('..'));
}

const layerOf = (file: string) => relative(src, file).split('/')[0]!;
const files = sourceFiles(src);
const graph = new Map(files.map((file) => [file, importsOf(file)]));

describe('architecture', () => {
  it('every source file belongs to a known layer', () => {
    expect(files.map(layerOf).filter((layer) => !LAYERS.includes(layer))).toEqual([]);
  });

  it('imports point down the layers only', () => {
    const upward: string[] = [];
    for (const [file, imports] of graph) {
      for (const target of imports) {
        const from = LAYERS.indexOf(layerOf(file));
        const to = LAYERS.indexOf(layerOf(target));
        if (to < from) upward.push(`${relative(src, file)} → ${relative(src, target)}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('each layer knows nothing of what docs/architecture.md says it does not', () => {
    /** Per folder (and what under it is exempt): imports it must not have, packages by name or files by path. */
    const claims: { folder: string; except?: string; packages?: RegExp; paths?: RegExp; claim: string }[] = [
      {
        folder: 'a2a',
        packages: /^(@?libp2p|@waku\/|@chainsafe\/)/,
        paths: /^(logos\/transports|lez)\//,
        claim: 'transports, the chain',
      },
      { folder: 'publish', packages: /^(hono|@hono\/)/, paths: /^bridge\//, claim: 'the engine, Hono' },
      { folder: 'bridge', packages: /^(hono|@hono\/|node:http$)/, claim: 'Hono, HTTP' },
      { folder: 'push', packages: /^(hono|@hono\/)/, claim: 'the engine, Hono' },
      {
        folder: 'logos',
        except: 'logos/node-rest/',
        packages: /^(@a2a-js\/|hono|@hono\/|node:http$)/,
        claim: "A2A; HTTP but for nwaku's REST API",
      },
      { folder: 'lez', packages: /^@a2a-js\//, claim: 'tasks' },
      { folder: 'store', packages: /^(hono|@hono\/|@a2a-js\/sdk\/(server|client|compat))/, claim: 'the bindings' },
    ];
    const broken: string[] = [];
    for (const file of files) {
      const path = relative(src, file);
      for (const { folder, except, packages, paths, claim } of claims) {
        if (!path.startsWith(`${folder}/`) || (except && path.startsWith(except))) continue;
        const text = readFileSync(file, 'utf8');
        for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
          const target = specifier!.startsWith('.') ? relative(src, resolve(dirname(file), specifier!)) : undefined;
          if (target === undefined ? packages?.test(specifier!) : paths?.test(target))
            broken.push(`${path} imports ${specifier} (${folder}/ knows nothing of ${claim})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('no import cycles', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'visiting') {
        cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(src, f)).join(' → '));
        return;
      }
      state.set(file, 'visiting');
      for (const target of graph.get(file) ?? []) visit(target, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(cycles).toEqual([]);
  });
});
