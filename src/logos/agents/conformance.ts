/**
 * `conformance`: behaves as the official A2A TCK expects of its system under test, keyed by the prefix of the
 * caller's messageId (a2a-tck `scenarios/*.feature`). It runs behind the gateway like any Logos agent, so the TCK
 * scenarios exercise the whole path: HTTP → bridge → binding → agent and back.
 *
 * The v0.3 suite (a2a-tck branch `0.3.x`) has no scenario prefixes: it expects the reference agent of that branch
 * (`python-sut/tck_core_agent`), whose every task stays submitted for 0.5 s, works for 0.5 s more, then after 0.2 s
 * sends its answer as an artifact and completes, so that a cancel or a second look finds it still running. A
 * message from a v0.3 caller (caller-version.ts) that names no scenario is answered so; from a v1.0 caller, it is
 * echoed at once.
 */
import { SkillRejected, type SkillContext } from '../agent-runtime.ts';
import { LogosAgent, builtinOptions, type BuiltinAgentOptions } from '../agent-runtime.ts';
import type { LogosTransport } from '../transport.ts';
import { sleep } from '../../time-limit.ts';
import { callerVersionOf } from '../caller-version.ts';

export interface ConformanceOptions extends BuiltinAgentOptions {
  /**
   * How long `test-resubscribe-message-id` keeps working before it completes: at least twice the TCK's streaming
   * timeout (2 s); 4.5 s by default, so a subscriber that arrives just at 4 s still finds it working. Tests shorten it.
   */
  resubscribeDelayMs?: number;
  /** How long `tck-delayed-complete` works before it completes (default: the TCK's streaming timeout, 2 s). */
  delayedCompleteMs?: number;
  /**
   * Declare the TCK's extension as required on the card, for the suite's check that a call without it is refused
   * (-32008). Off by default: the suite does not send the extension on its other calls, which would all be refused.
   */
  requireTckExtension?: boolean;
  /**
   * The v0.3 suite's task lifecycle: how long a task stays submitted, then working, then how long until its answer
   * (default: the reference agent's 0.5 s, 0.5 s and 0.2 s). Tests shorten it.
   */
  v03LifecycleMs?: V03Lifecycle;
}

export interface V03Lifecycle {
  submittedMs: number;
  workingMs: number;
  answerMs: number;
}

/** The v0.3 reference agent's timing (a2a-tck `0.3.x`, `python-sut/tck_core_agent/agent_executor.py`). */
export const DEFAULT_V03_LIFECYCLE: V03Lifecycle = { submittedMs: 500, workingMs: 500, answerMs: 200 };

/** The extension the TCK checks required extensions with. */
export const TCK_REQUIRED_EXTENSION = 'urn:a2a:tck:required-extension';

/** The TCK's streaming timeout: `test-resubscribe-message-id` works for twice that. */
const STREAMING_TIMEOUT_MS = 2_000;
export const DEFAULT_RESUBSCRIBE_DELAY_MS = 2 * STREAMING_TIMEOUT_MS + 500;

/**
 * The scenarios, by messageId prefix, exactly as the TCK's system under test answers them. Looked up longest prefix
 * first, since some prefixes extend others (`tck-artifact-file-url` and `tck-artifact-file`).
 */
type Scenario = (ctx: SkillContext, messageId: string) => Promise<unknown> | unknown;

export const TCK_VALUES = {
  greeting: 'Hello from TCK',
  artifactText: 'Generated text content',
  directMessage: 'Direct message response',
  rejected: 'rejected',
  fileName: 'output.txt',
  fileMediaType: 'text/plain',
  fileUrl: 'https://example.com/output.txt',
  fileBytes: Buffer.from('tck').toString('base64'),
  data: { key: 'value', count: 42 },
  stream001: 'Stream hello from TCK',
  stream003: 'Stream task lifecycle',
  streamOrdering: 'Ordered output',
  streamArtifactText: 'Streamed text content',
  chunks: ['chunk-1 ', 'chunk-2'],
  authRequired: 'Authorization required: answer on this task to authenticate.',
} as const;

export function conformanceAgent(transport: LogosTransport, options: ConformanceOptions = {}): LogosAgent {
  const scenarios = scenarioTable({
    resubscribeDelayMs: options.resubscribeDelayMs ?? DEFAULT_RESUBSCRIBE_DELAY_MS,
    delayedCompleteMs: options.delayedCompleteMs ?? STREAMING_TIMEOUT_MS,
  });
  const lifecycle = options.v03LifecycleMs ?? DEFAULT_V03_LIFECYCLE;
  return new LogosAgent({
    transport,
    ...builtinOptions(options),
    // The runtime acknowledges a silent skill with `working`; a v0.3 task must stay submitted longer than that.
    // Every scenario of the v1.0 suite says something itself at once.
    ackAfterMs: lifecycle.submittedMs + 250,
    card: {
      id: options.id ?? 'conformance',
      name: 'A2A conformance agent',
      description:
        'Answers as the A2A TCK expects, by the prefix of the messageId (tck-complete-task, tck-input-required, …).',
      version: '1.0.0',
      skills: [
        {
          id: 'conformance',
          name: 'TCK scenarios',
          description: 'Scenario chosen by messageId prefix; any other message is echoed.',
          tags: ['tck', 'conformance'],
        },
      ],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: transport.address }],
      ...(options.requireTckExtension
        ? {
            extensions: [
              {
                uri: TCK_REQUIRED_EXTENSION,
                description: 'The TCK’s required extension: calls that do not activate it are refused.',
                required: true,
              },
            ],
          }
        : {}),
    },
    skills: { conformance: (ctx) => run(ctx, messageIdOf(ctx.message), scenarios, lifecycle) },
  });
}

function messageIdOf(message: Record<string, unknown> | undefined): string {
  return typeof message?.messageId === 'string' ? message.messageId : '';
}

function run(
  ctx: SkillContext,
  messageId: string,
  scenarios: [string, Scenario][],
  lifecycle: V03Lifecycle,
): Promise<unknown> | unknown {
  const match = scenarios.find(([prefix]) => messageId.startsWith(prefix));
  if (match) return match[1](ctx, messageId);
  const answer = ctx.text !== '' ? ctx.text : ctx.params;
  return callerVersionOf(ctx.message) === '0.3' ? v03Lifecycle(ctx, answer, lifecycle) : answer;
}

/**
 * Submitted, working, then the answer as an artifact, then completed: the v0.3 suite's lifecycle. (Its reference
 * agent repeats the answer as the completion's status message; that would add it to the task's history, which the
 * suite does not look at, and which clients of both generations read alike.)
 */
async function v03Lifecycle(ctx: SkillContext, answer: unknown, lifecycle: V03Lifecycle): Promise<unknown> {
  // The task is submitted until the agent's first status.
  await sleep(lifecycle.submittedMs, ctx.signal);
  await ctx.progress();
  await sleep(lifecycle.workingMs + lifecycle.answerMs, ctx.signal);
  const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
  await ctx.artifact(textArtifact('response', text));
  return ctx.complete({});
}

function scenarioTable(delays: { resubscribeDelayMs: number; delayedCompleteMs: number }): [string, Scenario][] {
  const V = TCK_VALUES;
  const table: Record<string, Scenario> = {
    'tck-complete-task': (ctx) => ctx.complete({ message: V.greeting }),
    'tck-artifact-text': (ctx) => ctx.complete({ artifacts: [textArtifact('text-artifact', V.artifactText)] }),
    'tck-artifact-file': (ctx) => ctx.complete({ artifacts: [fileArtifact()] }),
    'tck-artifact-file-url': (ctx) =>
      ctx.complete({
        artifacts: [
          {
            artifact_id: 'file-url-artifact',
            name: 'file',
            parts: [{ url: V.fileUrl, filename: V.fileName, mediaType: V.fileMediaType }],
          },
        ],
      }),
    'tck-artifact-data': (ctx) =>
      ctx.complete({ artifacts: [{ artifact_id: 'data-artifact', name: 'data', parts: [{ data: { ...V.data } }] }] }),
    'tck-message-response': (ctx) => ctx.complete({ message: V.directMessage, asMessage: true }),
    'tck-input-required': async (ctx) => {
      // The follow-up on the same task is itself a scenario (the TCK sends tck-complete-task): run it by its own
      // messageId; a follow-up without a known prefix completes the task with what it said.
      const input = await ctx.requestInput('Please provide more input.');
      const followUp = messageIdOf(input.message);
      const next = table[longestPrefix(followUp)];
      if (next && !followUp.startsWith('tck-input-required')) return next(ctx, followUp);
      return ctx.complete({ message: `Received: ${input.text}` });
    },
    'tck-auth-required': async (ctx) => {
      // Stays in auth-required until the caller answers on the task; that answer completes it.
      const answer = await ctx.requestAuth(V.authRequired);
      return ctx.complete({ message: `Authenticated: ${answer.text}` });
    },
    'tck-delayed-complete': async (ctx) => {
      // For the execution-mode checks: a blocking send waits for the end, a returnImmediately one does not.
      await ctx.progress();
      await sleep(delays.delayedCompleteMs, ctx.signal);
      return ctx.complete({ message: V.greeting });
    },
    'tck-reject-task': () => {
      throw new SkillRejected(V.rejected);
    },
    'tck-stream-001': (ctx) => workArtifactComplete(ctx, V.stream001),
    'tck-stream-002': (ctx) => ctx.complete({}),
    'tck-stream-003': (ctx) => workArtifactComplete(ctx, V.stream003),
    'tck-stream-ordering-001': (ctx) => workArtifactComplete(ctx, V.streamOrdering),
    'tck-stream-artifact-text': (ctx) => workArtifactComplete(ctx, V.streamArtifactText),
    'tck-stream-artifact-file': async (ctx) => {
      await ctx.progress();
      await ctx.artifact(fileArtifact());
      return ctx.complete({});
    },
    'tck-stream-artifact-chunked': async (ctx) => {
      await ctx.progress();
      const [first, last] = V.chunks;
      await ctx.artifact({
        artifact_id: 'chunked-artifact',
        name: 'chunked',
        parts: [{ text: first }],
        append: false,
        last_chunk: false,
      });
      await ctx.artifact({
        artifact_id: 'chunked-artifact',
        name: 'chunked',
        parts: [{ text: last }],
        append: true,
        last_chunk: true,
      });
      return ctx.complete({});
    },
    'test-resubscribe-message-id': async (ctx) => {
      await ctx.progress();
      await sleep(delays.resubscribeDelayMs, ctx.signal);
      return ctx.complete({});
    },
  };
  const prefixes = Object.keys(table).sort((a, b) => b.length - a.length);
  const longestPrefix = (messageId: string) => prefixes.find((prefix) => messageId.startsWith(prefix)) ?? '';
  return prefixes.map((prefix) => [prefix, table[prefix]!]);
}

/** WORKING, one text artifact, COMPLETED. */
async function workArtifactComplete(ctx: SkillContext, text: string): Promise<unknown> {
  await ctx.progress();
  await ctx.artifact(textArtifact('stream-artifact', text));
  return ctx.complete({});
}

function textArtifact(id: string, text: string) {
  return { artifact_id: id, name: 'text', parts: [{ text }] };
}

function fileArtifact() {
  return {
    artifact_id: 'file-artifact',
    name: 'file',
    parts: [{ raw: TCK_VALUES.fileBytes, filename: TCK_VALUES.fileName, mediaType: TCK_VALUES.fileMediaType }],
  };
}
