/** The main job out of the box: `logos-a2a demo` serves the echo agent, and the curl example it prints works. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SendMessageRequest, TaskState, type Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { SERVE_SETTINGS, describeFailure } from '../../src/cli/errors.ts';
import { cliEntry } from './dist.ts';
import { stopChild, untilPrinted } from '../support/child-process.ts';

// dist/cli/main.js when dist/ is the build of the sources as they are (it starts quicker), else src/cli/main.ts.
const cli = cliEntry();

/**
 * How long a CLI process may take to start, or to end, before the test calls it hung. The file starts some thirty
 * at once, and on a 2-core machine, beside the suite's other worker, its type check and its linter, each waits its
 * turn for the CPU: a run that ends in half a second alone took over 20 s there, and the demo over 40 s to start.
 * A guard against a hang, not a measure of speed.
 */
const HUNG_AFTER_MS = 150_000;
/**
 * The tests' limit (and the demo's start-up hook's), a little longer: a hung process is then reported by its own
 * deadline, with what it printed.
 */
const PATIENCE = { timeout: HUNG_AFTER_MS + 10_000 };

// Every suite below runs its child processes independently of the others: the suites run concurrently (and so do
// the tests within a suite unless one depends on another), so the processes overlap their start-up waits.
describe.concurrent('logos-a2a demo', PATIENCE, () => {
  let child: ChildProcess;
  let output = '';
  let url = '';

  beforeAll(async () => {
    const database = join(mkdtempSync(join(tmpdir(), 'logos-a2a-cli-')), 'demo.db');
    child = spawn(process.execPath, [cli, 'demo'], {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        // Any free port rather than the demo's 50051, which another run may hold.
        LOGOS_A2A_GRPC_PORT: '0',
        LOGOS_A2A_DATABASE: database,
        LOGOS_A2A_WAKU_LISTEN: '/ip4/127.0.0.1/tcp/0',
        LOGOS_A2A_DEVNET_PORT: '0',
        LOGOS_A2A_WAKU_KEY_FILE: join(dirname(database), 'gateway.key'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`demo did not start:\n${output}`)), HUNG_AFTER_MS);
      child.stdout!.on('data', () => {
        const match = /listening at (http:\/\/\S+)/.exec(output);
        // The payments part (from 'LEZ devnet:') comes after "Ctrl-C", in one write of its own.
        if (match && output.includes('Ctrl-C') && output.includes('LEZ devnet:')) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
    });
  }, PATIENCE.timeout);

  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('prints the URLs and no experimental-feature noise', () => {
    expect(output).toContain(`${url}/agents/conformance/.well-known/agent-card.json`);
    expect(output).not.toMatch(/ExperimentalWarning/);
  });

  it('serves the echo card at the root, and the printed curl example returns a completed task with the echo', async () => {
    const card = await (await fetch(`${url}/.well-known/agent-card.json`)).json();
    expect(card.name).toBe('Echo');
    // Run exactly the example the demo printed.
    const example = /curl -s (\S+) -H '([^']+)' -H '([^']+)' \\\n\s+-d '([^']+)'/.exec(output);
    expect(example).not.toBeNull();
    const [, target, h1, h2, body] = example!;
    const headers = Object.fromEntries([h1!, h2!].map((h) => h.split(': ') as [string, string]));
    const response = await (await fetch(target!, { method: 'POST', headers, body })).json();
    expect(response.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(response.result.task.artifacts[0].parts[0].text).toBe('hello');
  });

  it('serves gRPC at the address its banner prints, which the official client finds in the card', async () => {
    const printed = /gRPC:\s+(\S+)/.exec(output)?.[1];
    expect(printed).toMatch(/^localhost:\d+$/);
    const factory = new ClientFactory({ transports: [new GrpcTransportFactory()], preferredTransports: ['GRPC'] });
    const client = await factory.createFromUrl(`${url}/agents/conformance/`);
    expect((await client.getAgentCard()).supportedInterfaces).toContainEqual(
      expect.objectContaining({ protocolBinding: 'GRPC', url: printed, tenant: 'conformance' }),
    );
    const request = SendMessageRequest.fromJSON({
      message: { messageId: 'cli-grpc', role: 'ROLE_USER', parts: [{ text: 'over gRPC' }] },
    });
    const task = (await client.sendMessage(request)) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('charges the paid agent’s price on the devnet, as the printed example shows', async () => {
    const example = /(curl -s \S+\/agents\/paid .*\n.*"skill":"echo".*)/.exec(output);
    expect(example).not.toBeNull();
    const devnet = /LEZ devnet:\s+(\S+)/.exec(output)![1]!;
    const agentAccount = /paid agent (\S+)/.exec(output)![1]!;
    const balance = async () => {
      const response = await fetch(devnet, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getAccountBalance', params: [agentAccount] }),
      });
      return Number((await response.json()).result);
    };
    const before = await balance();
    const task = await (
      await fetch(`${url}/agents/paid`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: {
            message: { messageId: 'cli-paid', role: 'ROLE_USER', parts: [{ text: 'hi' }], metadata: { skill: 'echo' } },
          },
        }),
      })
    ).json();
    expect(task.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.result.task.metadata.lez.status).toBe('paid');
    expect(await balance()).toBe(before + 5);
  });

  it('prints its operator token, and the printed /metrics command answers with the metrics', async () => {
    const example = /curl -s (\S+\/metrics) -H 'Authorization: Bearer ([^']+)'/.exec(output);
    expect(example).not.toBeNull();
    const [, target, token] = example!;
    expect(output).toContain(`Operator token: ${token}`);
    const response = await fetch(target!, { headers: { Authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('logos_a2a_http_requests_total');
  });

  // After the tests above: it ends the demo they talk to.
  it.sequential('stops cleanly on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

describe.concurrent('logos-a2a serve', PATIENCE, () => {
  it('refuses a bad setting with a message that names it, and exits 1', async () => {
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const run = spawn(process.execPath, [cli, 'serve'], {
        env: { ...process.env, PORT: 'eighty' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      run.stderr!.on('data', (chunk) => (stderr += chunk));
      // 'close', not 'exit': the process may end before its output has been read.
      run.on('close', (code) => resolve({ code, stderr }));
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/port \(env PORT\)/);
  });

  it('explains an unknown command', async () => {
    const code = await new Promise<number | null>((resolve) =>
      spawn(process.execPath, [cli, 'fly'], { stdio: 'ignore' }).on('exit', resolve),
    );
    expect(code).toBe(2);
  });
});

/** Runs the CLI to its end; `stack` tells whether anything looking like a stack trace was printed. */
function runCli(args: string[], env: Record<string, string> = {}, timeoutMs = HUNG_AFTER_MS) {
  return new Promise<{ code: number | null; stdout: string; stderr: string; stack: boolean }>((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(
      () => (child.kill('SIGKILL'), reject(new Error(`logos-a2a ${args.join(' ')} did not end:\n${stdout}${stderr}`))),
      timeoutMs,
    );
    // 'close', not 'exit': the process may end before its output has been read.
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, stack: /\n\s+at /.test(stderr) });
    });
  });
}

/** A gateway start that fails before it serves anything: an in-memory database, no Waku unless asked for. */
const quickServe = { PORT: '0', HOST: '127.0.0.1', LOGOS_A2A_DATABASE: ':memory:', LOGOS_A2A_TRANSPORT: 'memory' };

describe.concurrent('logos-a2a help', PATIENCE, () => {
  it('gives each command its own help, with the settings it reads', async () => {
    // Independent runs, started together.
    const commands = ['demo', 'serve', 'agent', 'devnet', 'keys', 'card', 'registry'];
    const [serve, agent, overview, keysHelp, versionRun, ...viaHelps] = await Promise.all([
      runCli(['serve', '--help']),
      runCli(['agent', '--help']),
      runCli(['--help']),
      runCli(['keys', '-h']),
      runCli(['--version']),
      ...commands.map((command) => runCli(['help', command])),
    ]);
    expect([serve.code, agent.code, overview.code]).toEqual([0, 0, 0]);
    expect(serve.stdout).toMatch(/^Usage: logos-a2a serve/);
    expect(serve.stdout).toMatch(/PORT/);
    expect(serve.stdout).toMatch(/LOGOS_A2A_WAKU_PEERS/);
    expect(agent.stdout).toMatch(/^Usage: logos-a2a agent KIND/);
    expect(agent.stdout).toMatch(/--peer MULTIADDR/);
    expect(agent.stdout).not.toEqual(serve.stdout);
    expect(overview.stdout).toMatch(/Commands:/);
    commands.forEach((command, i) => {
      const viaHelp = viaHelps[i]!;
      expect(viaHelp.stdout).toMatch(new RegExp(`^Usage: logos-a2a ${command}`));
      expect(viaHelp.stdout).not.toEqual(overview.stdout);
    });
    expect(keysHelp.stdout).toMatch(/LOGOS_A2A_WALLET_PASSPHRASE/);
    expect(versionRun.stdout).toMatch(/^logos-a2a \d+\.\d+\.\d+/);
  });
});

describe.concurrent('logos-a2a help: every setting the README names', PATIENCE, () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const read = (path: string) => readFileSync(join(root, path), 'utf8');
  const sources = (folder: string): string[] =>
    readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
      .filter((entry) => entry.endsWith('.ts') || entry.endsWith('.mjs'))
      .map((entry) => read(join(folder, entry)));
  /** The LOGOS_A2A_* variables code reads: `env.NAME`, `strings.NAME`, or a key of config.ts's ENVIRONMENT table. */
  const readBy = (texts: string[]) =>
    new Set(
      texts.flatMap((text) =>
        [...text.matchAll(/\.(LOGOS_A2A_\w+)\b|^\s*(LOGOS_A2A_\w+):/gm)].map((m) => (m[1] ?? m[2])!),
      ),
    );
  const words = (text: string) => new Set(text.match(/\bLOGOS_A2A_\w+\b/g));

  it("puts each in a command's help: the gateway's in serve --help (issue #22: LOGOS_A2A_WAKU_NODE_KEY_FILE was not)", async () => {
    const inReadme = [...words(read('README.md'))];
    const nodeSources = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((entry) => entry.endsWith('.ts') && !entry.startsWith('worker'))
      .map((entry) => read(join('src', entry)));
    const readByNode = readBy(nodeSources);
    const readByGatewayConfig = readBy([read('src/gateway/config.ts')]);
    // The Workers' own settings (README, "Cloudflare Workers") and a test's switch are no command's.
    const readElsewhere = readBy([...sources('src/worker'), read('src/worker.ts'), ...sources('test')]);
    const commands = ['serve', 'demo', 'agent', 'devnet', 'keys', 'card', 'registry'];
    const helps = await Promise.all(commands.map((command) => runCli([command, '--help'])));
    const inHelp = (i: number) => words(helps[i]!.stdout);
    const inAnyHelp = new Set(helps.flatMap((_, i) => [...inHelp(i)]));
    expect(inReadme.length).toBeGreaterThan(30);
    expect(inReadme.filter((name) => readByGatewayConfig.has(name) && !inHelp(0).has(name))).toEqual([]);
    expect(inReadme.filter((name) => readByNode.has(name) && !inAnyHelp.has(name))).toEqual([]);
    // A name no command reads is the Workers' or a test's: nothing the README names is read by nobody.
    expect(inReadme.filter((name) => !readByNode.has(name) && !readElsewhere.has(name))).toEqual([]);
  });
});

describe.concurrent('logos-a2a serve: the start banner', PATIENCE, () => {
  /** Starts serve with `config`, opens every URL its banner prints, and runs its curl example if it prints one. */
  async function bannerUrls(config: object) {
    const folder = mkdtempSync(join(tmpdir(), 'logos-a2a-banner-'));
    writeFileSync(join(folder, 'gateway.json'), JSON.stringify(config));
    const child = spawn(process.execPath, [cli, 'serve', '--config', join(folder, 'gateway.json')], {
      env: { ...process.env, ...quickServe, LOGOS_A2A_CARD_KEY_FILE: join(folder, 'card.key') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const { match, output } = await untilPrinted(child, /Ctrl-C stops it/, 'logos-a2a serve', HUNG_AFTER_MS);
      expect(match, output).toBeDefined();
      const example = /curl -s (\S+) -H '([^']+)' -H '([^']+)' \\\n\s+-d '([^']+)'/.exec(output);
      const urls = [...new Set(output.match(/https?:\/\/[^\s'"]+/g))].filter((url) => url !== example?.[1]);
      // As a browser opens them: the gateway's own URL is then its directory page.
      const accept = { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
      const answers = await Promise.all(
        urls.map(async (url) => [url, (await fetch(url, { headers: accept })).status] as const),
      );
      let exampleState: string | undefined;
      if (example) {
        const [, target, h1, h2, body] = example;
        const headers = Object.fromEntries([h1!, h2!].map((h) => h.split(': ') as [string, string]));
        const response = await (await fetch(target!, { method: 'POST', headers, body })).json();
        exampleState = response.result?.task?.status?.state;
      }
      return { output, answers, exampleState };
    } finally {
      await stopChild(child);
    }
  }

  it('with no agents configured, prints only URLs that answer, and no example call (issue #22)', async () => {
    const { output, answers, exampleState } = await bannerUrls({ agents: [] });
    expect(output).not.toMatch(/\(default\)/);
    expect(answers.map(([url]) => new URL(url).pathname).sort()).toEqual(['/', '/agents', '/openapi.json']);
    expect(answers.filter(([, status]) => status !== 200)).toEqual([]);
    expect(exampleState).toBeUndefined();
  });

  it('with its default agent, prints its cards and an example call that completes', async () => {
    const { output, answers, exampleState } = await bannerUrls({});
    expect(output).toMatch(/\(default\)\s+http/);
    expect(answers.length).toBeGreaterThanOrEqual(3);
    expect(answers.filter(([, status]) => status !== 200)).toEqual([]);
    expect(exampleState).toBe('TASK_STATE_COMPLETED');
  });
});

describe.concurrent('logos-a2a mistakes: one line, no stack', PATIENCE, () => {
  it('an unknown option, or an option of another command, is a usage error (exit 2)', async () => {
    const [unknown, elsewhere, missing] = await Promise.all([
      runCli(['serve', '--bogus']),
      runCli(['serve', '--peer', '/ip4/127.0.0.1/tcp/1']),
      runCli(['agent', 'echo', '--peer']),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('logos-a2a serve: unknown option --bogus; logos-a2a serve --help lists the options\n');
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toMatch(/unknown option --peer/);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--peer needs a value/);
  });

  it('the paid agent needs a sequencer, and a signing mode it knows (exit 2)', async () => {
    const [noSequencer, badMode] = await Promise.all([
      runCli(['agent', 'paid']),
      runCli(['agent', 'paid', '--sequencer', 'http://127.0.0.1:1', '--signing-mode', 'guess']),
    ]);
    expect(noSequencer).toMatchObject({ code: 2, stack: false });
    expect(noSequencer.stderr).toMatch(/^logos-a2a agent: the paid agent needs --sequencer URL/);
    expect(badMode).toMatchObject({ code: 2, stack: false });
    expect(badMode.stderr).toMatch(/--signing-mode is one of prehash-v0.3, raw-borsh, got "guess"/);
  });

  it("the paid agent's fee settings: a profile, base units and a gas limit it knows, for it alone (exit 2)", async () => {
    const paid = ['agent', 'paid', '--sequencer', 'http://127.0.0.1:1'];
    const [badProfile, badFee, badGas, badFeeEnv, onEcho] = await Promise.all([
      runCli([...paid, '--profile', 'v9']),
      runCli([...paid, '--max-fee', 'lots']),
      runCli([...paid, '--gas-limit', '0']),
      runCli(paid, { LOGOS_A2A_PAYMENTS_MAX_FEE: '1.5' }),
      runCli(['agent', 'echo', '--max-fee', '10']),
    ]);
    for (const refused of [badProfile, badFee, badGas, badFeeEnv, onEcho])
      expect(refused).toMatchObject({ code: 2, stack: false });
    expect(badProfile.stderr).toMatch(/--profile is one of v0.2, lee-v0.3, got "v9"/);
    expect(badFee.stderr).toMatch(/--max-fee takes base units, a decimal whole number, got "lots"/);
    expect(badGas.stderr).toMatch(/--gas-limit takes a whole number from 1 to 10000000, got "0"/);
    expect(badFeeEnv.stderr).toMatch(/--max-fee takes base units, a decimal whole number, got "1.5"/);
    expect(onEcho.stderr).toMatch(/--profile, --max-fee and --gas-limit are for the paid agent/);
  });

  it('--tck-required-extension is for the conformance agent only (exit 2)', async () => {
    const refused = await runCli(['agent', 'echo', '--tck-required-extension']);
    expect(refused).toMatchObject({ code: 2, stack: false });
    expect(refused.stderr).toMatch(/^logos-a2a agent: --tck-required-extension is for the conformance agent/);
  });

  it('a port that is not one names where it came from: --rest-port and --port exit 2, the devnet setting exits 1', async () => {
    const [restPort, emptyRestPort, devnetOption, devnetSetting] = await Promise.all([
      runCli(['agent', 'echo', '--rest-port', '65536']),
      runCli(['agent', 'echo', '--rest-port', '']),
      runCli(['devnet', '--port', '1.5']),
      runCli(['devnet'], { LOGOS_A2A_DEVNET_PORT: 'x' }),
    ]);
    expect(restPort).toMatchObject({ code: 2, stack: false });
    expect(restPort.stderr).toMatch(/^logos-a2a agent: --rest-port takes a port number from 0 to 65535, got "65536"/);
    expect(emptyRestPort).toMatchObject({ code: 2, stack: false });
    expect(emptyRestPort.stderr).toMatch(/--rest-port takes a port number from 0 to 65535, got ""/);
    expect(devnetOption).toMatchObject({ code: 2, stack: false });
    expect(devnetOption.stderr).toMatch(/^logos-a2a devnet: --port must be a port number from 0 to 65535, got "1.5"/);
    expect(devnetSetting).toMatchObject({ code: 1, stack: false });
    expect(devnetSetting.stderr).toMatch(/LOGOS_A2A_DEVNET_PORT must be a port number from 0 to 65535, got "x"/);
  });

  it('a bad multiaddr names where it came from: --peer and --listen exit 2, the Waku settings exit 1', async () => {
    const [peer, listen, peers, listens] = await Promise.all([
      runCli(['agent', 'echo', '--peer', 'localhost:60000']),
      runCli(['agent', 'echo', '--listen', '/ip4/1.2.3/tcp/1']),
      runCli(['serve'], { ...quickServe, LOGOS_A2A_TRANSPORT: 'waku', LOGOS_A2A_WAKU_PEERS: 'garbage' }),
      runCli(['serve'], { ...quickServe, LOGOS_A2A_TRANSPORT: 'waku', LOGOS_A2A_WAKU_LISTEN: '/ip4/127.0.0.1/tcp/x' }),
    ]);
    expect(peer).toMatchObject({ code: 2, stack: false });
    expect(peer.stderr).toMatch(
      /^logos-a2a agent: --peer "localhost:60000" is not a multiaddr .*write it like \/ip4\//,
    );
    expect(listen).toMatchObject({ code: 2, stack: false });
    expect(listen.stderr).toMatch(/--listen "\/ip4\/1.2.3\/tcp\/1" is not a multiaddr/);
    expect(peers).toMatchObject({ code: 1, stack: false });
    expect(peers.stderr).toMatch(/"garbage" \(LOGOS_A2A_WAKU_PEERS/);
    expect(listens).toMatchObject({ code: 1, stack: false });
    expect(listens.stderr).toMatch(/LOGOS_A2A_WAKU_LISTEN/);
    expect(listens.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a port in use names the setting (exit 1), for the gateway and for its Waku node', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    try {
      const [http, waku, devnet] = await Promise.all([
        runCli(['serve'], { ...quickServe, PORT: String(port) }),
        runCli(['serve'], {
          ...quickServe,
          LOGOS_A2A_TRANSPORT: 'waku',
          LOGOS_A2A_WAKU_LISTEN: `/ip4/127.0.0.1/tcp/${port}`,
        }),
        runCli(['devnet', '--port', String(port)]),
      ]);
      expect(http).toMatchObject({ code: 1, stack: false });
      expect(http.stderr).toBe(
        `logos-a2a serve: port ${port} is in use (PORT or the config's "port"); pick another port, or stop what holds it\n`,
      );
      expect(waku).toMatchObject({ code: 1, stack: false });
      expect(waku.stderr).toMatch(
        new RegExp(
          `^logos-a2a serve: the Logos network address /ip4/127.0.0.1/tcp/${port} is in use \\(LOGOS_A2A_WAKU_LISTEN`,
        ),
      );
      expect(devnet).toMatchObject({ code: 1, stack: false });
      expect(devnet.stderr).toMatch(/port \d+ is in use \(--port\)/);
    } finally {
      holder.close();
    }
  });

  it('a host that does not resolve, or is not this machine, names HOST', () => {
    // Failures as the HTTP server reports them (no DNS query leaves this machine in the test).
    const lookup = Object.assign(new Error('getaddrinfo ENOTFOUND gateway.example'), {
      code: 'ENOTFOUND',
      syscall: 'getaddrinfo',
      hostname: 'gateway.example',
    });
    expect(describeFailure(lookup, { prefix: 'logos-a2a serve', ...SERVE_SETTINGS })).toEqual({
      message: `logos-a2a serve: cannot resolve the host "gateway.example" (HOST or the config's "host"); use an IP address: 127.0.0.1 for this machine only, 0.0.0.0 for every interface`,
      exitCode: 1,
    });
    const foreign = Object.assign(new Error('listen EADDRNOTAVAIL'), {
      code: 'EADDRNOTAVAIL',
      syscall: 'listen',
      address: '10.9.9.9',
      port: 8080,
    });
    expect(describeFailure(foreign, { prefix: 'logos-a2a serve', ...SERVE_SETTINGS })?.message).toMatch(
      /10\.9\.9\.9 is not an address of this machine \(HOST/,
    );
    expect(describeFailure(new TypeError('a bug'), { prefix: 'logos-a2a serve' })).toBeUndefined();
  });

  it('a second signal while stopping ends the process at once', async () => {
    // A gateway on Waku: stopping it takes a few network round trips, so the second signal comes while it stops.
    const folder = mkdtempSync(join(tmpdir(), 'logos-a2a-signal-'));
    const child = spawn(process.execPath, [cli, 'serve'], {
      env: {
        ...process.env,
        ...quickServe,
        LOGOS_A2A_TRANSPORT: 'waku',
        LOGOS_A2A_WAKU_LISTEN: '/ip4/127.0.0.1/tcp/0',
        LOGOS_A2A_WAKU_KEY_FILE: join(folder, 'gateway.key'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), HUNG_AFTER_MS);
      child.stdout!.on('data', () => output.includes('Ctrl-C') && (clearTimeout(timer), resolve()));
    });
    // 'close', not 'exit': the line about the second signal must have been read too.
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    child.kill('SIGTERM');
    child.kill('SIGINT');
    expect([130, 143]).toContain(await exited);
    expect(output).toMatch(/again, stopping at once/);
  });
});

describe.concurrent('logos-a2a keys', PATIENCE, () => {
  const run = (args: string[], env: Record<string, string>, input?: string) =>
    new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, [cli, 'keys', ...args], {
        env: { ...process.env, ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout!.on('data', (chunk) => (out += chunk));
      child.stderr!.on('data', (chunk) => (out += chunk));
      child.stdin!.end(input ?? '');
      child.on('close', (code) => resolve({ code, out }));
    });

  it('new over an existing file says so plainly, and creates a missing folder', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'logos-a2a-keys-'));
    const file = join(folder, 'nested', 'wallet.json');
    const created = await run(['new', '--file', file], { LOGOS_A2A_WALLET_PASSPHRASE: 'p' });
    expect(created.code).toBe(0);
    const again = await run(['new', '--file', file], { LOGOS_A2A_WALLET_PASSPHRASE: 'p' });
    expect(again.code).toBe(1);
    expect(again.out).toMatch(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} already exists`));
    expect(again.out).toMatch(/keys show --file/);
    expect(again.out).not.toMatch(/\.tmp|EEXIST/);
  });

  it('new, show and import agree on the account; a wrong passphrase is refused', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'logos-a2a-keys-'));
    const file = join(folder, 'wallet.json');
    const created = await run(['new', '--file', file], { LOGOS_A2A_WALLET_PASSPHRASE: 'correct horse' });
    expect(created.code).toBe(0);
    const account = /account\s+(\S+)/.exec(created.out)![1]!;
    const phrase = /write it down[^\n]*\n\s+(.+)\n/.exec(created.out)![1]!;
    expect(phrase.split(' ')).toHaveLength(24);
    // Each of these only reads the file, so they run together.
    const [shown, wrong, imported, noPassphrase] = await Promise.all([
      run(['show', '--file', file], { LOGOS_A2A_WALLET_PASSPHRASE: 'correct horse' }),
      run(['show', '--file', file], { LOGOS_A2A_WALLET_PASSPHRASE: 'wrong' }),
      run(
        ['import', '--file', join(folder, 'copy.json'), '--mnemonic-file', '-'],
        { LOGOS_A2A_WALLET_PASSPHRASE: 'other' },
        phrase,
      ),
      run(['show', '--file', file], { LOGOS_A2A_WALLET_PASSPHRASE: '' }),
    ]);
    expect(shown.out).toContain(account);
    expect(shown.out).not.toContain(phrase);
    expect(wrong.code).toBe(1);
    expect(wrong.out).toMatch(/passphrase/i);
    expect(imported.code).toBe(0);
    expect(imported.out).toContain(account);
    expect(noPassphrase.out).toMatch(/LOGOS_A2A_WALLET_PASSPHRASE/);
  });
});
