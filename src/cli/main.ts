#!/usr/bin/env node
/**
 * `logos-a2a`: the Node entry point. It imports nothing of its own until the runtime is known to fit and the compile
 * cache is on, then loads the commands (commands.ts; in dist/, the CLI bundled into that file and chunks beside it).
 */
import nodeModule from 'node:module';

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 13)) {
  process.stderr.write(
    `logos-a2a needs Node.js 22.13 or newer (this is ${process.version}). From a checkout, use npm start or npm run serve:\n` +
      'they run the Node 22 that npm ci installed into the project. Where logos-a2a is installed as a package, npx logos-a2a\n' +
      'runs it with the Node 22 the package brings.\n',
  );
  process.exit(1);
}

// The compiled code of what loads next is kept on disk (in the system's temporary folder, or NODE_COMPILE_CACHE;
// NODE_DISABLE_COMPILE_CACHE=1 turns it off), which makes every start after the first faster. It only covers modules
// loaded after this call: hence this small file in front of the bundle.
nodeModule.enableCompileCache();

// node:sqlite still announces itself as experimental on Node 22; that line would only confuse operators. Every
// other warning still prints. The commands are imported after this, as loading the gateway loads node:sqlite.
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name === 'ExperimentalWarning' && /SQLite/i.test(warning.message)) return;
  process.stderr.write(`${warning.name}: ${warning.message}\n`);
});

await import('./commands.ts');
