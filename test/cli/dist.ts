/**
 * Whether dist/ is the build of the sources as they are now. `npm ci` builds it (through `prepare`); an edit in src/
 * since the last build makes it stale. Tests that start the CLI as a child process run dist/'s JavaScript when it is
 * fresh, as it starts quicker than the TypeScript, and the sources otherwise, so they never test an older build.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * True when every source file has its .js and .d.ts in dist/, none of them older than any source, build setting or
 * dependency change.
 */
export function distIsFresh(): boolean {
  let newestInput = 0;
  let oldestOutput = Infinity;
  try {
    // The build settings, and the dependencies' versions: the CLI's bundle carries the dependencies' code.
    for (const setting of ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'])
      newestInput = Math.max(newestInput, statSync(join(root, setting)).mtimeMs);
    for (const entry of readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })) {
      if (!entry.endsWith('.ts') || builtByWrangler(entry)) continue;
      newestInput = Math.max(newestInput, statSync(join(root, 'src', entry)).mtimeMs);
      const built = join(root, 'dist', entry.slice(0, -'.ts'.length));
      for (const output of [`${built}.js`, `${built}.d.ts`])
        oldestOutput = Math.min(oldestOutput, statSync(output).mtimeMs);
    }
  } catch {
    return false; // an output is missing
  }
  return oldestOutput >= newestInput;
}

/** The Cloudflare Workers entry: wrangler bundles it from the sources; tsconfig.build.json leaves it out of dist/. */
function builtByWrangler(entry: string): boolean {
  return entry === 'worker.ts' || entry.startsWith('worker/');
}

/** The CLI to start as a child process: dist/cli/main.js when dist/ is fresh, else src/cli/main.ts. */
export function cliEntry(): string {
  return distIsFresh() ? join(root, 'dist/cli/main.js') : join(root, 'src/cli/main.ts');
}
