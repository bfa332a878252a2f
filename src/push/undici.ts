/**
 * undici, as the push deliveries use it. Loaded on demand through this module, never through `import('undici')`: the
 * CLI's bundle (esbuild, split into chunks) hands a dynamic import of a CommonJS package only its default export,
 * while a static import of it, here, keeps every named one.
 */
export { Agent, buildConnector, request } from 'undici';
