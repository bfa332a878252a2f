/**
 * deploy/Dockerfile without a container engine: parsed with dockerfile-ast and held to the rules the image must keep
 * (stages, pinned bases, a non-root user, the /livez healthcheck, `serve`, /data as a volume, sources that exist);
 * then its stages carried out in a clean temporary directory (each COPY copied, each RUN run, the build stage's
 * output copied into the runtime stage) and the result started as the image would start it, until its healthcheck
 * passes.
 */
import { spawn, execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Copy, DockerfileParser, type Instruction } from 'dockerfile-ast';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopChild } from '../support/child-process.ts';

const run = promisify(execFile);
const repo = join(import.meta.dirname, '../..');
const text = readFileSync(join(repo, 'deploy/Dockerfile'), 'utf8');

interface Step {
  keyword: string;
  args: string[];
  raw: string;
  json: string[] | undefined;
  /** COPY --from's stage. */
  from: string | undefined;
}

interface Stage {
  name: string | undefined;
  image: string;
  instructions: Step[];
}

/** The Dockerfile as stages of instructions, from dockerfile-ast's parse. */
function stagesOf(source: string): Stage[] {
  const stages: Stage[] = [];
  for (const instruction of DockerfileParser.parse(source).getInstructions()) {
    const keyword = instruction.getKeyword();
    const args = instruction.getArguments().map((a) => a.getValue());
    const raw = (instruction.getArgumentsContent() ?? '').replace(/\\\r?\n/g, ' ');
    if (keyword === 'FROM') {
      const asAt = args.findIndex((a) => a.toUpperCase() === 'AS');
      stages.push({ name: asAt >= 0 ? args[asAt + 1] : undefined, image: args[0]!, instructions: [] });
      continue;
    }
    const from = instruction instanceof Copy ? (instruction.getFromFlag()?.getValue() ?? undefined) : undefined;
    stages.at(-1)!.instructions.push({ keyword, args, raw, json: jsonForm(instruction, raw), from });
  }
  return stages;
}

function jsonForm(instruction: Instruction, raw: string): string[] | undefined {
  const at = raw.indexOf('[');
  if (!['CMD', 'ENTRYPOINT', 'HEALTHCHECK', 'VOLUME'].includes(instruction.getKeyword()) || at < 0) return undefined;
  return JSON.parse(raw.slice(at)) as string[];
}

/** ENV lines as a record (`ENV A=1 \ B=2`). */
function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { keyword, args } of stage.instructions) {
    if (keyword !== 'ENV') continue;
    for (const pair of args) {
      const at = pair.indexOf('=');
      env[pair.slice(0, at)] = pair.slice(at + 1);
    }
  }
  return env;
}

const stages = stagesOf(text);
const runtime = stages.at(-1)!;
const find = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword);

describe('deploy/Dockerfile, linted', () => {
  it('builds in one stage and runs in another, from pinned images', () => {
    expect(stages.map((s) => s.name)).toEqual(['build', 'runtime']);
    for (const stage of stages) expect(stage.image).toMatch(/^node:22[-.\w]*$/); // a tag, never latest
    // The runtime stage takes only the build's output, not its sources or dev dependencies.
    const fromBuild = find(runtime, 'COPY').filter((c) => c.from !== undefined);
    expect(fromBuild.map((c) => c.args[0])).toEqual(['/app/package.json', '/app/node_modules', '/app/dist']);
    for (const copy of fromBuild) expect(stages.map((s) => s.name)).toContain(copy.from);
  });

  it('runs serve as the unprivileged node user, with a healthcheck on /livez and /data as a volume', () => {
    expect(find(runtime, 'USER').map((u) => u.args[0])).toEqual(['node']);
    const lastUser = runtime.instructions.findLastIndex((i) => i.keyword === 'USER');
    // Nothing after USER runs as root again.
    expect(runtime.instructions.slice(lastUser).some((i) => i.keyword === 'RUN')).toBe(false);
    const [healthcheck] = find(runtime, 'HEALTHCHECK');
    expect(healthcheck!.json?.join(' ')).toContain('/livez');
    expect(find(runtime, 'VOLUME')[0]!.json).toEqual(['/data']);
    expect(find(runtime, 'ENTRYPOINT')[0]!.json).toEqual(['node', 'dist/cli/main.js']);
    expect(find(runtime, 'CMD')[0]!.json).toEqual(['serve']);
    const env = envOf(runtime);
    // Every file the gateway writes is on the volume, also with PostgreSQL as the database (where the card key would
    // otherwise go to .data/ under the read-only application directory).
    const files = [
      'LOGOS_A2A_DATABASE',
      'LOGOS_A2A_WAKU_KEY_FILE',
      'LOGOS_A2A_CARD_KEY_FILE',
      'LOGOS_A2A_WALLET_KEY_FILE',
    ];
    for (const setting of files) {
      expect(env[setting], setting).toMatch(/^\/data\//);
    }
  });

  it('keeps out of the build context everything .gitignore keeps out of the repository: local state and secrets', () => {
    const lines = (file: string) =>
      readFileSync(join(repo, file), 'utf8')
        .split('\n')
        .map((line) => line.trim().replace(/\/$/, ''))
        .filter((line) => line && !line.startsWith('#'));
    const ignored = lines('.dockerignore');
    // .gitignore's `*.db` matches at any depth; .dockerignore's only at the top, unless written `**/*.db`.
    const missing = lines('.gitignore').filter(
      (entry) => !ignored.includes(entry.includes('*') ? `**/${entry}` : entry),
    );
    expect(missing).toEqual([]);
    expect(ignored).toEqual(expect.arrayContaining(['.dev.vars', '.wrangler']));
  });

  it('copies only what the repository has and the build context keeps', () => {
    const ignored = readFileSync(join(repo, '.dockerignore'), 'utf8')
      .split('\n')
      .filter((line) => line && !line.startsWith('#'));
    for (const stage of stages) {
      for (const copy of find(stage, 'COPY').filter((c) => c.from === undefined)) {
        for (const source of copy.args.slice(0, -1)) {
          expect(existsSync(join(repo, source)), source).toBe(true);
          expect(
            ignored.some((pattern) => source === pattern || source.startsWith(`${pattern}/`)),
            source,
          ).toBe(false);
        }
      }
    }
  });
});

/**
 * A clean install and build take minutes on a busy machine, so this part runs where the image matters: in CI
 * (.ci/run sets LOGOS_A2A_IMAGE_BUILD_TEST=1) or when asked for.
 */
describe.runIf(process.env.LOGOS_A2A_IMAGE_BUILD_TEST === '1')('deploy/Dockerfile, carried out', () => {
  let root: string;
  let gateway: ReturnType<typeof spawn> | undefined;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'logos-a2a-image-'));
  });

  afterAll(async () => {
    await stopChild(gateway);
    rmSync(root, { recursive: true, force: true });
  }, 120_000);

  it('builds in a clean directory, and the result starts and passes its healthcheck', async () => {
    // "/" of each stage is a folder of its own; the Node 22 running this test stands in for the base image's.
    const fileSystems = new Map(stages.map((stage) => [stage.name, join(root, stage.name ?? 'stage')]));
    const inStage = (stage: Stage, path: string) => join(fileSystems.get(stage.name)!, path);
    const path = `${dirname(process.execPath)}:${process.env.PATH ?? ''}`;
    for (const stage of stages) {
      let workdir = '/';
      for (const { keyword, args, from } of stage.instructions) {
        if (keyword === 'WORKDIR') {
          workdir = args[0]!;
          mkdirSync(inStage(stage, workdir), { recursive: true });
        } else if (keyword === 'COPY') {
          const [destination, ...sources] = [...args].reverse();
          for (const source of sources.reverse()) {
            const origin = from
              ? inStage(
                  stages.find((s) => s.name === from)!,
                  source,
                )
              : join(repo, source);
            const target = join(inStage(stage, workdir), destination!);
            cpSync(origin, destination!.endsWith('/') ? join(target, source.split('/').pop()!) : target, {
              recursive: true,
            });
          }
        } else if (keyword === 'RUN') {
          const command = args.join(' ');
          // chown to the image's user is the engine's business; here everything belongs to whoever runs the test.
          if (command.includes('chown')) continue;
          await run('sh', ['-c', command], {
            cwd: inStage(stage, workdir),
            env: { ...process.env, PATH: path, npm_config_prefer_offline: 'true', npm_config_update_notifier: 'false' },
            maxBuffer: 64 * 1024 * 1024,
          });
        }
      }
    }

    const app = inStage(runtime, '/app');
    expect(existsSync(join(app, 'dist/cli/main.js'))).toBe(true);
    expect(existsSync(join(app, 'node_modules/typescript'))).toBe(false); // dev dependencies pruned
    const data = join(root, 'data');
    mkdirSync(data);
    // The image's environment, with /data where the volume is, and loopback and free ports for the test.
    const env: Record<string, string> = {
      ...Object.fromEntries(Object.entries(envOf(runtime)).map(([k, v]) => [k, v.replace(/^\/data\//, `${data}/`)])),
      PATH: path,
      HOST: '127.0.0.1',
      PORT: '0',
      LOGOS_A2A_WAKU_LISTEN: '/ip4/127.0.0.1/tcp/0',
    };
    const [entry, ...entryArgs] = [...find(runtime, 'ENTRYPOINT')[0]!.json!, ...find(runtime, 'CMD')[0]!.json!];
    expect(entry).toBe('node');
    gateway = spawn(process.execPath, entryArgs, { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    gateway.stdout!.on('data', (chunk) => (output += chunk));
    gateway.stderr!.on('data', (chunk) => (output += chunk));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the gateway did not start:\n${output}`)), 60_000);
      gateway!.stdout!.on('data', () => {
        const match = /listening at (http:\/\/\S+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      gateway!.once('exit', (code) => reject(new Error(`the gateway exited with ${code}:\n${output}`)));
    });
    expect(existsSync(join(data, 'gateway.key'))).toBe(true); // state goes to the volume

    const [check, ...checkArgs] = find(runtime, 'HEALTHCHECK')[0]!.json!;
    expect(check).toBe('node');
    const port = new URL(url).port;
    const healthy = await run(process.execPath, checkArgs, { env: { ...env, PORT: port } }).then(
      () => true,
      () => false,
    );
    expect(healthy).toBe(true);

    const exited = new Promise<number | null>((resolve) => gateway!.once('exit', resolve));
    gateway.kill('SIGTERM');
    expect(await exited).toBe(0); // an orderly stop
  }, 900_000);
});
