/**
 * An agent's replies to one task (docs/binding.md, task status): numbered by `seq`, published in that order on the
 * task's status topic under its status key, and kept so that a gateway that missed some can ask for them again
 * (task_get, a repeated task_request). A finished task's replies are kept a while, then forgotten (`Retention`).
 */
import {
  BINDING_VERSION,
  encodeEnvelope,
  encodeOwn,
  taskStatusTopic,
  type AgentEnvelope,
  type DistributiveOmit,
} from '../envelope.ts';
import { OldestFirst } from '../oldest-first.ts';
import { planResultChunks } from '../result-chunks.ts';
import { statusKeyBytes } from '../status-key.ts';
import type { LogosTransport } from '../transport.ts';
import type { KeptAlive } from '../../keep-alive.ts';
import { uuidV4 } from '../../uuid.ts';

/** No task to forget, shared. */
const NONE: readonly string[] = Object.freeze([]);

/** An outbox with nothing in it, shared: a promise less for each task. */
const IDLE: Promise<void> = Promise.resolve();

/** What a reply says; the log adds the version, a fresh id, the task id and the next `seq`. */
export type AgentReply = DistributiveOmit<AgentEnvelope, 'v' | 'id' | 'task_id' | 'seq'>;

/** Where replies go: the agent's transport, and its name for the log lines of a failed publication. */
export interface ReplyTarget {
  readonly transport: Pick<LogosTransport, 'publish' | 'maxPayloadBytes'>;
  readonly agentId: string;
}

/**
 * A finished task's log is kept a while (`Retention`), thousands of them: it holds what a replay needs and little
 * else. The topic and the key's bytes are made for each publication (a task publishes a reply or two), and the
 * replies are one array made with the first (an empty array grows to room for 16 at its first push).
 */
export class ReplyLog implements KeptAlive {
  readonly taskId: string;
  /** The task's status key (its wire form): every reply is published under it. */
  private readonly statusKey: string;
  private readonly target: ReplyTarget;
  private log: AgentEnvelope[] | undefined;
  private lastSeq = 0;
  /** Serialises publication so replies leave in seq order. */
  private outbox: Promise<void> = IDLE;
  /** While the skill runs, the last reply is published again after a quiet interval (keep-alive.ts, `beat`). */
  lastSentAt = 0;

  /** `afterSeq`: replies the gateway already has (a task resumed after a restart); the first is numbered after them. */
  constructor(taskId: string, statusKey: string, target: ReplyTarget, afterSeq = 0) {
    this.lastSeq = afterSeq;
    this.taskId = taskId;
    this.statusKey = statusKey;
    this.target = target;
  }

  /** The `seq` of the last reply (0 before the first). */
  get seq(): number {
    return this.lastSeq;
  }

  /** Publishes `reply` as the task's next, after the replies before it. */
  reply(reply: AgentReply): Promise<void> {
    const envelope = this.nextEnvelope(reply);
    return this.post(envelope, encodeOwn(envelope));
  }

  /** A completed result that does not fit in one message goes as artifact chunks, then the result without it. */
  sendResult(reply: AgentReply): Promise<void> {
    // Encoded once: the bytes that are measured are the bytes that are sent.
    const envelope = this.nextEnvelope(reply);
    const payload = encodeOwn(envelope);
    if (
      reply.type !== 'task_result' ||
      reply.state !== 'completed' ||
      payload.length <= this.target.transport.maxPayloadBytes
    ) {
      return this.post(envelope, payload);
    }
    const { result, artifacts, ...rest } = reply;
    const plan = planResultChunks(result, artifacts, this.chunkBudget());
    if (plan.kind === 'too-large') {
      const error = { code: 'result_too_large', message: plan.message };
      return this.reply({ type: 'task_result', state: 'failed', error, message: plan.message });
    }
    for (const artifact of plan.chunks) void this.reply({ type: 'task_status', state: 'working', artifact });
    return this.reply(rest);
  }

  /** Publishes again every reply after `afterSeq`, in order. */
  replay(afterSeq: number): void {
    for (const envelope of this.log ?? []) if (envelope.seq > afterSeq) void this.enqueue(encodeOwn(envelope));
  }

  /** Publishes the last reply again, for the keep-alive. */
  beat(): void {
    const last = this.log?.at(-1);
    if (last) void this.enqueue(encodeOwn(last));
  }

  /** The bytes one chunk's part may take: a message, less what an envelope around an empty chunk takes. */
  private chunkBudget(): number {
    const empty = { artifact_id: 'result', name: 'result', parts: [{ text: '' }], append: true, last_chunk: true };
    const overhead = encodeEnvelope(
      this.nextEnvelope({ type: 'task_status', state: 'working', artifact: empty }),
    ).length;
    // Room for the longer artifact ids and names of the agent's own artifacts.
    return this.target.transport.maxPayloadBytes - overhead - 1_024;
  }

  /** The task's next envelope around `reply`; it takes its `seq` only once posted. */
  private nextEnvelope(reply: AgentReply): AgentEnvelope {
    return {
      ...reply,
      v: BINDING_VERSION,
      id: uuidV4(),
      task_id: this.taskId,
      seq: this.lastSeq + 1,
    } as AgentEnvelope;
  }

  /** Logs the envelope as the task's next and publishes its bytes after the replies before it. */
  private post(envelope: AgentEnvelope, payload: Uint8Array): Promise<void> {
    this.lastSeq = envelope.seq;
    if (this.log) this.log.push(envelope);
    else this.log = [envelope];
    return this.enqueue(payload);
  }

  private enqueue(payload: Uint8Array): Promise<void> {
    this.lastSentAt = performance.now();
    // The log's first reply has nothing to wait for: it goes at once, without a promise and a microtask of its own
    // (a quick task has no other reply).
    const sent = this.outbox === IDLE ? this.publish(payload) : this.outbox.then(() => this.publish(payload));
    this.outbox = sent.catch((error: unknown) => {
      console.error(`agent ${this.target.agentId}: publishing on ${taskStatusTopic(this.taskId)} failed`, error);
    });
    return this.outbox;
  }

  /** A transport that throws rather than rejects fails the publication all the same. */
  private publish(payload: Uint8Array): Promise<void> {
    try {
      const key = statusKeyBytes(this.statusKey);
      return this.target.transport.publish(taskStatusTopic(this.taskId), payload, { key });
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

/** The answer about a task this agent does not know (it restarted, or the request never arrived): the gateway fails it. */
export function unknownTaskReply(taskId: string, afterSeq: number): AgentEnvelope {
  const message = 'The agent has no record of this task; it may have restarted.';
  return {
    v: BINDING_VERSION,
    id: uuidV4(),
    task_id: taskId,
    seq: afterSeq + 1,
    type: 'task_result',
    state: 'failed',
    error: { code: 'unknown_task', message },
    message,
  };
}

/** Which finished tasks' replies are kept: for `retentionMs` each, and at most `maxRetained`, the oldest forgotten first. */
export class Retention {
  /** Finished tasks, with when they finished… */
  private readonly finished = new Map<string, number>();
  /** …and their ids, oldest first. */
  private readonly order = new OldestFirst<string>();
  private readonly retentionMs: number;
  private readonly maxRetained: number;

  constructor(retentionMs: number, maxRetained: number) {
    this.retentionMs = retentionMs;
    this.maxRetained = maxRetained;
  }

  /** Keeps `taskId` as finished now; answers the tasks to forget, past the time or count limit (no timer per task). */
  retain(taskId: string, now = Date.now()): readonly string[] {
    // A task finished again (a repeated request after it was forgotten) keeps its place, as in a Map. Whether it is
    // new shows in the size: one lookup rather than two.
    const before = this.finished.size;
    this.finished.set(taskId, now);
    if (this.finished.size > before) this.order.push(taskId);
    // Once full, each task finished forgets one: an array made with it holds one, where an empty one would grow to
    // room for 16 at its first push.
    let forgotten: string[] | undefined;
    for (let oldest = this.order.peek(); oldest !== undefined; oldest = this.order.peek()) {
      if (this.finished.size <= this.maxRetained && now - this.finished.get(oldest)! < this.retentionMs) break;
      this.order.shift();
      this.finished.delete(oldest);
      if (forgotten) forgotten.push(oldest);
      else forgotten = [oldest];
    }
    return forgotten ?? NONE;
  }
}
