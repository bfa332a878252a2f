/**
 * The Postman collection in postman/: it is what `npm run postman` makes of openapi/openapi.json, and newman runs it
 * as committed against `npm start` (the demo, started here on free ports): every request passes its own checks, on
 * JSON-RPC and HTTP+JSON, v1.0 and v0.3, at the root and under /agents/{agentId}.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { run, type RunSummary } from 'newman';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTMAN_FILES, postmanFiles, postmanJson } from '../../scripts/postman/collection.ts';
import { cliEntry } from '../cli/dist.ts';
import { stopChild, untilPrinted } from '../support/child-process.ts';

const root = new URL('../..', import.meta.url);
const committed = (file: string) => readFileSync(new URL(file, root), 'utf8');
const collection = JSON.parse(committed(POSTMAN_FILES.collection));
const environment = JSON.parse(committed(POSTMAN_FILES.environment));

/** The demo's start on a busy 2-core machine (see test/cli/cli.test.ts), and the run of some hundred requests. */
const PATIENCE = 150_000;

describe('the Postman collection', () => {
  it('is what npm run postman makes of the OpenAPI document', async () => {
    const files = await postmanFiles(JSON.parse(committed('openapi/openapi.json')));
    expect(committed(POSTMAN_FILES.collection)).toBe(postmanJson(files.collection));
    expect(committed(POSTMAN_FILES.environment)).toBe(postmanJson(files.environment));
  });

  it('names no placeholder and no fixed id: every id comes from a variable a request before it sets', () => {
    const text = committed(POSTMAN_FILES.collection);
    expect(text).not.toMatch(/<string>|<integer>|<boolean>|<uri>|\{\{bearerToken\}\}/);
    const variables = new Set([...text.matchAll(/\{\{(\w+)\}\}/g)].map((match) => match[1]));
    expect([...variables].sort()).toEqual(['adminToken', 'agentId', 'approvalTaskId', 'baseUrl', 'configId', 'taskId']);
  });
});

describe('the Postman collection run by newman against npm start', { timeout: PATIENCE }, () => {
  let demo: ChildProcess;
  let dataDir: string;
  let summary: RunSummary;
  const adminToken = 'postman-test-admin-token';

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'logos-a2a-postman-'));
    const database = join(dataDir, 'demo.db');
    demo = spawn(process.execPath, [cliEntry(), 'demo'], {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        LOGOS_A2A_DATABASE: database,
        LOGOS_A2A_WAKU_LISTEN: '/ip4/127.0.0.1/tcp/0',
        LOGOS_A2A_DEVNET_PORT: '0',
        LOGOS_A2A_WAKU_KEY_FILE: join(dirname(database), 'gateway.key'),
        LOGOS_A2A_ADMIN_TOKEN: adminToken,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The payments part ("LEZ devnet:") is printed last, once everything is up.
    const started = await untilPrinted(demo, /listening at (http:\/\/\S+)[\s\S]*LEZ devnet:/, 'demo', PATIENCE);
    if (!started.match) throw new Error(`demo exited (${started.code}):\n${started.output}`);
    const values = environment.values.map((value: { key: string }) =>
      value.key === 'baseUrl'
        ? { ...value, value: started.match![1] }
        : value.key === 'adminToken'
          ? { ...value, value: adminToken }
          : value,
    );
    summary = await new Promise((resolve, reject) =>
      run({ collection, environment: { ...environment, values }, reporters: [], timeoutRequest: 30_000 }, (error, s) =>
        error ? reject(error) : resolve(s),
      ),
    );
  }, PATIENCE);

  afterAll(async () => {
    await stopChild(demo);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sends every request of the collection, and each passes every check of its own', () => {
    const requests = JSON.stringify(collection).match(/"request":/g)!.length;
    expect(requests).toBeGreaterThan(90);
    expect(summary.run.executions.length).toBe(requests);
    const failures = summary.run.failures.map((failure) => `${failure.source?.name}: ${failure.error.message}`);
    expect(failures).toEqual([]);
    for (const execution of summary.run.executions) {
      expect(execution.requestError, execution.item.name).toBeUndefined();
      expect(execution.assertions?.length ?? 0, execution.item.name).toBeGreaterThan(0);
      expect(
        execution.assertions!.filter((assertion) => assertion.skipped || assertion.error),
        execution.item.name,
      ).toEqual([]);
    }
  });

  it('cancels a task of the agent on each binding and version: the cancels answer a cancelled task', () => {
    const answers = summary.run.executions
      .filter((execution) => /\/agents\/conformance\b/.test(execution.request.url.toString()))
      .filter((execution) => /:cancel|CancelTask|tasks\/cancel/.test(execution.item.name))
      .map((execution) => JSON.parse(execution.response!.stream!.toString()));
    const states = answers.map((answer) => (answer.result ?? answer).status.state);
    // v1.0 JSON-RPC, v0.3 JSON-RPC, v1.0 HTTP+JSON, v0.3 HTTP+JSON (proto JSON, two Ls).
    expect(states).toEqual(['TASK_STATE_CANCELED', 'canceled', 'TASK_STATE_CANCELED', 'TASK_STATE_CANCELLED']);
  });
});
