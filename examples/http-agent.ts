/**
 * An A2A agent over HTTP, written with @a2a-js/sdk's own server stack and nothing of this project: the kind of agent
 * `logos-a2a publish` puts on Logos (README, "Publishing an HTTP agent on Logos").
 *
 *   node_modules/.bin/node examples/http-agent.ts [PORT]     (default 9000; prints "listening URL")
 *
 * It streams "you said: TEXT" back, and to "ask" it answers with a question (input-required), then greets whoever
 * answers it on the same task.
 */
import { createServer } from 'node:http';
import express from 'express';
import { AgentCard, Role, TaskState, type Message } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';

const port = Number(process.argv[2] ?? 9000);
const url = `http://127.0.0.1:${port}`;

const textOf = (message: Message) =>
  message.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');

const executor: AgentExecutor = {
  async execute({ taskId, contextId, userMessage, task }, bus) {
    const status = (state: TaskState, text?: string) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state,
            message: text
              ? {
                  messageId: `${taskId}-${Date.now()}`,
                  contextId,
                  taskId,
                  role: Role.ROLE_AGENT,
                  parts: [
                    { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' },
                  ],
                  metadata: undefined,
                  extensions: [],
                  referenceTaskIds: [],
                }
              : undefined,
            timestamp: new Date().toISOString(),
          },
          metadata: undefined,
        }),
      );
    const reply = (text: string) =>
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: 'reply',
            name: 'reply',
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
    // Every turn opens with the task: new, or the one the message continues.
    bus.publish(
      AgentEvent.task(
        task ?? {
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
          artifacts: [],
          history: [userMessage],
          metadata: undefined,
        },
      ),
    );
    const text = textOf(userMessage);
    if (task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      reply(`hello, ${text}`);
      return status(TaskState.TASK_STATE_COMPLETED);
    }
    if (text === 'ask') return status(TaskState.TASK_STATE_INPUT_REQUIRED, 'What is your name?');
    status(TaskState.TASK_STATE_WORKING, 'thinking');
    reply(`you said: ${text}`);
    status(TaskState.TASK_STATE_COMPLETED);
  },
  async cancelTask() {},
};

const card = AgentCard.fromJSON({
  name: 'Parrot',
  description: 'Says back what it was told; asks for a name when told "ask".',
  supportedInterfaces: [
    { url: `${url}/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ],
  version: '1.0.0',
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'parrot', name: 'Parrot', description: 'Says back what it was told.', tags: ['demo'] }],
});

const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
const app = express();
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: requestHandler }));
app.use(jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
app.use(restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
createServer(app).listen(port, '127.0.0.1', () => console.log(`listening ${url}`));
