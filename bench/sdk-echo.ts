/**
 * @a2a-js/sdk 1.3.0's own server stack (DefaultRequestHandler + InMemoryTaskStore + Express) with an echo executor
 * that answers a blocking SendMessage with a completed task holding the text: the reference of bench/targets.ts,
 * in the benchmark's thread (b) or as a process of its own behind a proxy (p).
 */
import { createServer } from 'node:http';
import { closeServer, portOf } from './support.ts';
import type { RunningTarget } from './targets.ts';

export async function startSdkEcho(): Promise<RunningTarget> {
  const { default: express } = await import('express');
  const sdk = await import('@a2a-js/sdk');
  const { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } = await import('@a2a-js/sdk/server');
  const { jsonRpcHandler, UserBuilder } = await import('@a2a-js/sdk/server/express');
  type AgentExecutor = import('@a2a-js/sdk/server').AgentExecutor;
  type AgentCard = import('@a2a-js/sdk').AgentCard;
  const { TaskState } = sdk;

  const executor: AgentExecutor = {
    async execute(requestContext, eventBus) {
      const { taskId, contextId } = requestContext;
      const userMessage = requestContext.userMessage;
      const text = userMessage.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
      eventBus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
          artifacts: [],
          history: [userMessage],
          metadata: undefined,
        }),
      );
      eventBus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: 'result',
            name: 'result',
            description: '',
            parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
            metadata: undefined,
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      eventBus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: new Date().toISOString() },
          metadata: undefined,
        }),
      );
    },
    async cancelTask() {},
  };

  // The card is finished once the port is known; the handler only reads it per request.
  const card: AgentCard = {
    name: 'Echo (SDK reference)',
    description: 'Returns the text it was sent.',
    supportedInterfaces: [{ url: 'http://127.0.0.1/', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: false, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'echo',
        name: 'Echo',
        description: 'Echoes the text back.',
        tags: ['echo'],
        examples: ['hello'],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };

  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const app = express();
  app.use(jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${portOf(server)}/`;
  card.supportedInterfaces[0]!.url = url;
  return { url, close: () => closeServer(server) };
}
