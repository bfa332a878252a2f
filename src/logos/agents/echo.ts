/** `echo`: returns what it was sent. The demo's default agent and the benchmark's far end. */
import { LogosAgent, builtinOptions, type BuiltinAgentOptions } from '../agent-runtime.ts';
import type { LogosTransport } from '../transport.ts';

export function echoAgent(transport: LogosTransport, options: BuiltinAgentOptions = {}): LogosAgent {
  return new LogosAgent({
    transport,
    ...builtinOptions(options),
    card: {
      id: options.id ?? 'echo',
      name: 'Echo',
      description: 'Returns what it was sent: the text of a text message, or the params of a data message.',
      version: '1.0.0',
      skills: [
        {
          id: 'echo',
          name: 'Echo',
          description: 'Echoes the text (or, without text, the params) back as the result.',
          tags: ['demo', 'echo'],
          examples: ['hello'],
        },
      ],
      agentInterfaces: [{ type: 'logos-messaging', version: '1', address: transport.address }],
    },
    skills: {
      echo: (ctx) => (ctx.text !== '' ? ctx.text : ctx.params),
    },
  });
}
