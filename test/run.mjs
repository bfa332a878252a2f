// `npm test`: the type check, the linter and formatter checks, and the tests, side by side (the tests leave a core
// idle much of the time); it fails when any of them fails. Arguments go to vitest.
import { spawn } from 'node:child_process';

const node = process.execPath;
const run = (args) =>
  new Promise((resolve) => spawn(node, args, { stdio: 'inherit' }).on('close', (code) => resolve(code === 0)));
const checks = [
  run([
    'node_modules/typescript/bin/tsc',
    '-p',
    'tsconfig.json',
    '--noEmit',
    '--incremental',
    '--tsBuildInfoFile',
    'node_modules/.cache/tsc/typecheck.tsbuildinfo',
  ]),
  run([
    'node_modules/eslint/bin/eslint.js',
    '--max-warnings=0',
    'src',
    'test',
    'bench',
    'examples',
    'scripts',
    'eslint.config.js',
  ]).then(
    async (linted) =>
      (await run([
        'node_modules/prettier/bin/prettier.cjs',
        '--check',
        '--log-level=warn',
        'src',
        'test',
        'bench',
        'examples',
        'scripts',
      ])) && linted,
  ),
  run(['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)]),
];
process.exit((await Promise.all(checks)).every(Boolean) ? 0 : 1);
