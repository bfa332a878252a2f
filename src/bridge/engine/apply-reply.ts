/**
 * What one agent reply does to its task, as a pure change of the task in place: its status, artifacts and error,
 * and the A2A events that tell of it. The engine decides when a reply applies (reply-sequencer.ts) and saves the
 * result; this says what it changes.
 */
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { AgentEnvelope, WireArtifact } from '../../logos/envelope.ts';
import { resultArtifact, statusOf, toAgentMessage, toArtifact, toTaskState } from '../mapping.ts';
import { artifactEvent, replaceArtifact, statusEvent } from '../task-events.ts';

/** Applies the reply to the task; returns the events it makes, in the order a stream shows them. */
export function applyReply(task: Task, envelope: AgentEnvelope): StreamResponse[] {
  const events: StreamResponse[] = [];
  switch (envelope.type) {
    case 'task_status': {
      // The state change first (a first chunk usually also moves the task to working), then the chunk.
      const state = toTaskState(envelope.state);
      if (state !== task.status?.state || envelope.message !== undefined || !envelope.artifact) {
        setStatus(task, state, envelope.message);
        events.push(statusEvent(task));
      }
      if (envelope.artifact) events.push(mergeArtifact(task, envelope.artifact));
      break;
    }
    case 'task_result': {
      // The result first (built in order: an unshift cost more than the rest of a small result's reply).
      const artifacts =
        envelope.result !== undefined && envelope.result !== null ? [resultArtifact(envelope.result)] : [];
      for (const artifact of envelope.artifacts ?? []) artifacts.push(toArtifact(artifact));
      for (const artifact of artifacts) {
        task.artifacts = replaceArtifact(task.artifacts, artifact);
        events.push(artifactEvent(task, artifact, false, true));
      }
      const message = envelope.message ?? envelope.error?.message;
      setStatus(task, toTaskState(envelope.state), message);
      if (envelope.error) task.metadata = { ...task.metadata, error: envelope.error };
      events.push(statusEvent(task));
      break;
    }
    case 'cancelled':
      setStatus(task, TaskState.TASK_STATE_CANCELED, envelope.message ?? 'Task cancelled.');
      events.push(statusEvent(task));
      break;
  }
  return events;
}

/** The task's new status; its message, if any, also joins the history. */
export function setStatus(task: Task, state: TaskState, message?: Parameters<typeof toAgentMessage>[0]): void {
  const agentMessage = message === undefined ? undefined : toAgentMessage(message, task.id, task.contextId);
  task.status = statusOf(state, agentMessage);
  if (agentMessage) task.history = [...task.history, agentMessage];
}

/** A chunk of an artifact: appended to the artifact of its id (`append`), or replacing it. */
function mergeArtifact(task: Task, chunk: WireArtifact): StreamResponse {
  const incoming = toArtifact(chunk);
  const existing = task.artifacts.find((a) => a.artifactId === incoming.artifactId);
  const merged = chunk.append && existing ? { ...existing, parts: [...existing.parts, ...incoming.parts] } : incoming;
  task.artifacts = replaceArtifact(task.artifacts, merged);
  return artifactEvent(task, incoming, chunk.append ?? false, chunk.last_chunk ?? false);
}
