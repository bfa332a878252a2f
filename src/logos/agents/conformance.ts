/**
 * `conformance`: behaves as the official A2A TCK expects of its system under test, keyed by the prefix of the
 * caller's messageId (a2a-tck `scenarios/*.feature`). It runs behind the gateway like any Logos agent, so the TCK
 * scenarios exercise the whole path: HTTP → bridge → binding → agent and back.
 */
import { SkillRejected, type SkillContext } from '../agent-runtime.ts';
import { LogosAgent, builtinOptions, type BuiltinAgentOptions } from '../agent-runtime.ts';
import type { LogosTransport } from '../transport.ts';

export interface ConformanceOptions extends BuiltinAgentOptions {
  /** How long `test-resubscribe-message-id` keeps working before it completes (the TCK wants ≥ 4 s). */
  resubscribeDelayMs?: number;
}

const GREETING = 'Hello from TCK';

export function conformanceAgent(transport: LogosTransport, options: ConformanceOptions = {}): LogosAgent {
  const resubscribeDelayMs = options.resubscribeDelayMs ?? 4_500;
  return new LogosAgent({
    transport,
    ...builtinOptions(options),
    card: {
      id: options.id ?? 'conformance',
      name: 'A2A conformance agent',
      description: 'Answers as the A2A TCK expects, by the prefix of the messageId (tck-complete-task, tck-input-required, …).',
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
    },
    skills: { conformance: (ctx) => scenario(ctx, resubscribeDelayMs) },
  });
}

async function scenario(ctx: SkillContext, resubscribeDelayMs: number): Promise<unknown> {
  const messageId = typeof ctx.message?.messageId === 'string' ? ctx.message.messageId : '';
  const has = (prefix: string) => messageId.startsWith(prefix);

  if (has('tck-complete-task')) return ctx.complete({ message: GREETING });
  if (has('tck-message-response')) return ctx.complete({ message: GREETING, asMessage: true });
  if (has('tck-reject-task')) throw new SkillRejected('Rejected by the TCK scenario tck-reject-task.');
  if (has('tck-input-required')) {
    const input = await ctx.requestInput('Please provide more input.');
    return ctx.complete({ message: `Received: ${input.text}` });
  }
  if (has('tck-artifact-text')) return ctx.complete({ artifacts: [textArtifact('text-artifact', GREETING)] });
  if (has('tck-artifact-file-url')) {
    return ctx.complete({
      artifacts: [{ artifact_id: 'file-url-artifact', name: 'file', parts: [{ url: 'https://example.com/tck.txt', mediaType: 'text/plain', filename: 'tck.txt' }] }],
    });
  }
  if (has('tck-artifact-file')) return ctx.complete({ artifacts: [fileArtifact()] });
  if (has('tck-artifact-data')) {
    return ctx.complete({ artifacts: [{ artifact_id: 'data-artifact', name: 'data', parts: [{ data: { key: 'value', count: 42 } }] }] });
  }
  if (has('tck-stream-artifact-chunked')) {
    const chunks = ['Hello ', 'from ', 'TCK'];
    for (const [index, text] of chunks.entries()) {
      await ctx.artifact({
        artifact_id: 'chunked-artifact',
        name: 'chunked',
        parts: [{ text }],
        append: index > 0,
        last_chunk: index === chunks.length - 1,
      });
    }
    return ctx.complete({ message: GREETING });
  }
  if (has('tck-stream-artifact-file')) {
    await ctx.artifact({ ...fileArtifact() });
    return ctx.complete({ message: GREETING });
  }
  if (has('tck-stream-')) {
    await ctx.progress('Working on it.');
    await ctx.artifact(textArtifact('stream-artifact', GREETING));
    return ctx.complete({ message: GREETING });
  }
  if (has('test-resubscribe-message-id')) {
    await ctx.progress('Working; subscribe to follow along.');
    await sleep(resubscribeDelayMs, ctx.signal);
    return ctx.complete({ message: GREETING });
  }
  return ctx.text !== '' ? ctx.text : ctx.params;
}

function textArtifact(id: string, text: string) {
  return { artifact_id: id, name: 'text', parts: [{ text }] };
}

function fileArtifact() {
  return {
    artifact_id: 'file-artifact',
    name: 'file',
    parts: [{ raw: Buffer.from(GREETING).toString('base64'), mediaType: 'text/plain', filename: 'tck.txt' }],
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}
