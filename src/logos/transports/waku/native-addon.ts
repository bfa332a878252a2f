/**
 * Loads a native addon where Node's module API exists: `load` gets a CommonJS require of this project's packages (and
 * `requireFrom`, one relative to another file, for a package's own dependencies) and returns the addon, or undefined when there is no such API (Workers, browsers) or loading throws (no prebuilt binary
 * for this platform). Callers keep their JavaScript implementation for those cases.
 */
export function loadNativeAddon<T>(
  load: (require: NodeJS.Require, requireFrom: (path: string) => NodeJS.Require) => T,
): T | undefined {
  const nodeModule = globalThis.process?.getBuiltinModule?.('node:module') as typeof import('node:module') | undefined;
  if (!nodeModule) return undefined;
  try {
    return load(nodeModule.createRequire(import.meta.url), (path) => nodeModule.createRequire(path));
  } catch {
    return undefined;
  }
}
