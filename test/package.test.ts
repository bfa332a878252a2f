/**
 * The package as a newcomer gets it: `npm pack`, unpacked into a project of its own, the README's "Writing a Logos
 * agent" run there as its own process against the packed `logos-a2a serve` on 127.0.0.1, and the agent shows up at
 * the gateway and answers a task. Its types check as a user's TypeScript would see them.
 *
 * Installing the tarball with npm would need the registry (npm's cache holds the dependencies' tarballs, not their
 * metadata), so the package is unpacked from the tarball as npm would place it, and each dependency it declares is
 * linked to the checkout's installed copy. What is tested is therefore exactly what the tarball holds, resolved
 * through its `exports`, `bin` and `dependencies`; only the dependencies' own files come from the checkout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distIsFresh } from './cli/dist.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = join(root, 'node_modules/typescript/bin/tsc');
let work: string;
let project: string;
let installed: string;
let manifest: { bin: Record<string, string>; dependencies: Record<string, string>; exports: Record<string, unknown> };
/** The tarball `npm pack` wrote. */
let tarball: string;
const children: ChildProcess[] = [];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A long-running process whose output is collected; resolves once `ready` matches it. */
function start(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  what: string,
): Promise<{ child: ChildProcess; output: () => string; match: RegExpExecArray }> {
  const child = spawn(process.execPath, args, {
    cwd: project,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start:\n${output}`)), 30_000);
    const check = () => {
      const match = ready.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, output: () => output, match });
      }
    };
    child.stdout!.on('data', (chunk) => ((output += chunk), check()));
    child.stderr!.on('data', (chunk) => ((output += chunk), check()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}:\n${output}`));
    });
  });
}

/** The first block of `language` under the README's "Writing a Logos agent", as a reader copies it. */
function readmeBlock(language: 'ts' | 'json'): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Writing a Logos agent'));
  const code = new RegExp(`\`\`\`${language}\n([\\s\\S]*?)\`\`\``).exec(section);
  if (!code) throw new Error(`README.md: no ${language} block under "Writing a Logos agent"`);
  return code[1]!;
}

/** The README's example code. */
const readmeSnippet = () => readmeBlock('ts');

/** The package.json the README gives a project of one's own. */
const readmeProject = () => JSON.parse(readmeBlock('json')) as { type?: string; dependencies?: Record<string, string> };

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'logos-a2a-package-'));
  project = join(work, 'project');
  installed = join(project, 'node_modules', 'logos-a2a');
  mkdirSync(installed, { recursive: true });
  // dist/ from the sources as they are, as `npm pack` would through `prepare`: built unless it already is (npm ci
  // builds it). Type errors are the typecheck's business (npm test runs it before the tests), so the build does not
  // check types (--noCheck, the same output sooner) and its exit code is not what matters here.
  if (!distIsFresh()) await run(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck'], root);
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], root);
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`);
  const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
  tarball = filename;
  const unpacked = await run('tar', ['-xzf', join(work, filename), '-C', installed, '--strip-components=1'], work);
  if (unpacked.code !== 0) throw new Error(`tar failed:\n${unpacked.stderr}`);
  manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
  // Each declared dependency, and the user's own @types/node for the type check, from the checkout's installation.
  for (const name of [...Object.keys(manifest.dependencies), '@types/node']) {
    const link = join(project, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(root, 'node_modules', name), link, 'dir');
  }
  // The module type the README tells a reader to set (its dependency is the tarball, placed above).
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'newcomer', private: true, type: readmeProject().type }),
  );
  writeFileSync(join(project, 'upper.ts'), readmeSnippet());
}, 120_000);

afterAll(async () => {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          child.once('exit', () => (clearTimeout(timer), resolve()));
          child.kill('SIGTERM');
        }),
    ),
  );
  if (work) rmSync(work, { recursive: true, force: true });
});

// The three tests only read what beforeAll set up (each writes files of its own), so they run together.
describe.concurrent('the packed package', () => {
  it('is installed as the README says: the tarball npm pack writes, in an ES module project', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toContain(`npm install ../logos-a2a/${tarball}`);
    expect(readmeProject()).toEqual({ type: 'module', dependencies: { 'logos-a2a': `file:../logos-a2a/${tarball}` } });
    expect(readme).not.toMatch(/npm install logos-a2a\b/);
  });

  it('holds the README example as examples/upper-agent.ts, and exposes only its public modules', async () => {
    expect(readFileSync(join(installed, 'examples/upper-agent.ts'), 'utf8')).toBe(readmeSnippet());
    expect(Object.keys(manifest.exports).sort()).toEqual(['./agent', './package.json']);
    const probe = (specifier: string) =>
      run(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(specifier)})`], project);
    const surface = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const m = await import('logos-a2a/agent'); console.log(Object.keys(m).sort().join(' '))",
      ],
      project,
    );
    expect(surface.stderr).toBe('');
    expect(surface.stdout.trim().split(' ')).toEqual(
      expect.arrayContaining([
        'LogosAgent',
        'SkillRejected',
        'WakuTransport',
        'WakuLightTransport',
        'loadOrCreateKey',
        'signLogosCard',
        'verifyLogosCard',
        'DEFAULT_DISCOVERY_TOPIC',
        'LogosCaller',
        'HirePayments',
      ]),
    );
    const internal = await probe('logos-a2a/dist/gateway.js');
    expect(internal.code).not.toBe(0);
    expect(internal.stderr).toMatch(/ERR_PACKAGE_PATH_NOT_EXPORTED/);
  }, 30_000);

  it('type-checks the README example against the packed declarations, as a user project would', async () => {
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2023',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
        },
        include: ['*.ts'],
      }),
    );
    // Were the declarations missing or unresolvable, LogosAgent would be `any` and this expected error would not occur.
    writeFileSync(
      join(project, 'typed.ts'),
      "import { LogosAgent, type SkillContext } from 'logos-a2a/agent';\n" +
        '// @ts-expect-error a card, a transport and skills are required\n' +
        'new LogosAgent({});\n' +
        'export const text = (ctx: SkillContext): string => ctx.text;\n',
    );
    const checked = await run(process.execPath, [tsc, '-p', project], project);
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.code).toBe(0);
  }, 60_000);

  it('runs the README agent as its own process: the packed gateway lists it and it answers a task', async () => {
    // Without the built-in echo agent, which the test does not use: the gateway starts without waiting for it to join.
    writeFileSync(join(project, 'gateway.json'), JSON.stringify({ agents: [] }));
    const gateway = await start(
      [join(installed, manifest.bin['logos-a2a']!), 'serve', '--config', join(project, 'gateway.json')],
      {
        PORT: '0',
        HOST: '127.0.0.1',
        LOGOS_A2A_DATABASE: ':memory:',
        LOGOS_A2A_TRANSPORT: 'waku',
        LOGOS_A2A_WAKU_LISTEN: '/ip4/127.0.0.1/tcp/0',
        LOGOS_A2A_WAKU_KEY_FILE: join(project, '.data/gateway.key'),
      },
      /listening at (http:\/\/\S+)[\s\S]*join at (\S+)[\s\S]*Ctrl-C/,
      'logos-a2a serve',
    );
    const url = gateway.match[1]!.replace('//localhost:', '//127.0.0.1:');
    const joinAt = gateway.match[2]!;
    await start(['upper.ts', joinAt], {}, /upper: waku:/, 'the README agent');

    const deadline = Date.now() + 30_000;
    let card: Response | undefined;
    while (Date.now() < deadline) {
      card = await fetch(`${url}/agents/upper/.well-known/agent-card.json`);
      if (card.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(card?.status).toBe(200);
    expect((await card!.json()).name).toBe('Upper');

    const response = await fetch(`${url}/agents/upper`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: 'u1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
      }),
    });
    const { result } = await response.json();
    expect(result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(result.task.artifacts[0].parts[0].text).toBe('HELLO');
  }, 60_000);
});
