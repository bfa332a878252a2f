/**
 * When the engine speaks to an agent again unasked, and when it gives up on one: a request no reply answered is
 * sent again, a restarted agent is asked about its tasks, a paid task's cancel is repeated, and a task whose agent
 * stays silent for `agentTimeoutMs` fails (a paid one after one more question). Every schedule stops once its task
 * is no longer live here or has ended.
 */
import { uuidV7 } from '../../uuid.ts';
import { TaskState } from '@a2a-js/sdk';
import { encodeEnvelope } from '../../logos/envelope.ts';
import { withLogContext } from '../../observability/log-context.ts';
import { inTraceOf } from '../../observability/tracing.ts';
import type { LiveTask } from '../live-task.ts';
import { isInterrupted, isTerminal } from '../mapping.ts';
import { SilenceTimers } from '../silence-timers.ts';
import type { AgentSender } from './agent-sender.ts';
import { setStatus } from './apply-reply.ts';
import type { LiveTasks } from './live-tasks.ts';

export interface RetransmissionOptions {
  tasks: LiveTasks;
  sender: Pick<AgentSender, 'envelope' | 'send' | 'sendEncoded'>;
  /** A task submitted or working fails when the agent has been silent this long. */
  agentTimeoutMs: number;
  /** Ends a task here, as it stands (its refund settled, saved, no longer live, told). Runs on the task's chain. */
  finish: (live: LiveTask) => Promise<void>;
  log: (message: string) => void;
}

/** Questions repeated to a restarted agent, after the first. */
const RESTART_ASKS = 4;
/** A request no reply has answered is sent again this long after it went out, then after twice as long, … */
const FIRST_RESEND_MS = 2_000;
/** … this many times. */
const REQUEST_RESENDS = 4;

export class Retransmission {
  readonly #options: RetransmissionOptions;
  /** Fails a task whose agent stays silent for agentTimeoutMs (see `silent`). */
  readonly #silence: SilenceTimers<LiveTask>;
  /**
   * Each request's first resend (see `resendUntilAnswered`). Every new task sets one and nearly every one is cleared
   * unfired: on one timer, a task costs an entry in a map, not a timer of its own with its async context.
   */
  readonly #firstResends: SilenceTimers<LiveTask>;

  constructor(options: RetransmissionOptions) {
    this.#options = options;
    this.#silence = new SilenceTimers(options.agentTimeoutMs, (live) => this.silent(live));
    this.#firstResends = new SilenceTimers(FIRST_RESEND_MS, (live) => this.resendRequest(live));
  }

  /**
   * The agent's silence counts from now. A paid task's agent is asked once more before the task fails, and gets
   * another period (`lastChance`): it holds the money, and its answer (the result, or that it lost the task) may
   * only have been lost on the way, say while a restarted gateway's node joined the network.
   */
  watchSilence(live: LiveTask, lastChance = false): void {
    live.lastChance = lastChance;
    this.#silence.arm(live);
  }

  /** The task waits on its caller or an operator, or left: the agent's silence does not count. */
  ignoreSilence(live: LiveTask): void {
    this.#silence.disarm(live);
  }

  /**
   * Asks now, and again 0.5, 1.5, 3.5 and 7.5 s later while the task lives: a restarted agent announces itself before its
   * node has rejoined the relay mesh, so a question can be lost on the way. Whether an answer came in reply cannot be
   * told from a reply still in flight from before the restart, so the few questions go out regardless; a repeat
   * costs the agent a replay, whose duplicates the engine drops by seq.
   */
  askAfterRestart(live: LiveTask): void {
    this.askAgain(live);
    this.repeatWhileLive(live, 500, RESTART_ASKS, () => this.askAgain(live));
  }

  /**
   * A request lost on the way (published while the agent's node was still joining the relay mesh, or while a node
   * on the path restarted) is sent again, as after a restart (binding §5.7 b), 2, 6, 14 and 30 s after it went out,
   * until a reply has been applied or a cancel has gone out: an agent answers within a fraction of a second (§4.1),
   * and one that did get the request only re-publishes its replies, so a resend is cheap either way. Without this,
   * a lost request stayed unanswered until the silence timeout failed the task. A cancelled task's request is not
   * sent again: an agent that never had it would run what the caller cancelled. Nor is an agent asked whose binding
   * knows no resend (the seed's, §13): its answer to a question about a task it has not registered yet may be that
   * it failed.
   */
  resendUntilAnswered(live: LiveTask): void {
    if (live.wireBinding.replaysRepeatedRequest) this.#firstResends.arm(live);
  }

  /** The task leaves: its request is not sent again. */
  stopResending(live: LiveTask): void {
    this.#firstResends.disarm(live);
    clearTimeout(live.resendTimer);
  }

  /** The first resend is due: the rest go on their own timers (few requests go unanswered for long). */
  private resendRequest(live: LiveTask): void {
    const unanswered = () => live.lastSeq === 0 && !live.cancelSent;
    if (!this.wanted(live, unanswered)) return;
    // In the task's own log fields and trace, not those of the timer that found it due.
    withLogContext({ agentId: live.agentId, taskId: live.task.id }, () =>
      inTraceOf(live.request, () => {
        this.askAgain(live);
        this.repeatWhileLive(
          live,
          FIRST_RESEND_MS,
          REQUEST_RESENDS,
          () => this.askAgain(live),
          unanswered,
          (timer) => (live.resendTimer = timer),
          1,
        );
      }),
    );
  }

  /** Repeats a paid task's cancel 1, 3, 7, 15 and 31 s later while the task lives and its agent has not answered. */
  keepCancelling(live: LiveTask): void {
    this.repeatWhileLive(
      live,
      1_000,
      RESTART_ASKS + 1,
      () =>
        void this.#options.sender
          .send(live, { type: 'cancel' })
          .catch((error: unknown) => this.#options.log(`cancelling task ${live.task.id} again: ${String(error)}`)),
    );
  }

  /**
   * No reply yet: the request may never have arrived, so send it again (agents treat a repeat as a replay request).
   * Otherwise ask for every reply after the last one applied. Both go out under a fresh message id: receivers drop
   * ids they have seen.
   */
  askAgain(live: LiveTask): void {
    const { sender } = this.#options;
    // An agent that would run a repeated request again is only ever asked.
    const payload =
      live.lastSeq === 0 && live.wireBinding.replaysRepeatedRequest
        ? encodeEnvelope({ ...live.request, id: uuidV7() })
        : encodeEnvelope(sender.envelope(live, { type: 'task_get', after_seq: live.lastSeq }));
    void sender
      .sendEncoded(live, payload)
      .catch((error: unknown) => this.#options.log(`asking again about task ${live.task.id}: ${String(error)}`));
  }

  /**
   * Runs `action` `times` times, after `firstDelayMs`, then after each wait twice the one before, while the task is
   * live here and `wanted()` says so (checked at each turn: once it says no, the repeats stop). `keep` is given each
   * timer set, for the task to clear it when it leaves.
   */
  private repeatWhileLive(
    live: LiveTask,
    firstDelayMs: number,
    times: number,
    action: () => void,
    wanted: () => boolean = () => true,
    keep?: (timer: NodeJS.Timeout) => void,
    done = 0,
  ): void {
    if (done >= times) return;
    const timer = setTimeout(
      () => {
        if (!this.wanted(live, wanted)) return;
        action();
        this.repeatWhileLive(live, firstDelayMs, times, action, wanted, keep, done + 1);
      },
      firstDelayMs * 2 ** done,
    );
    timer.unref();
    keep?.(timer);
  }

  /** Whether a repeat is still wanted: the task is live here, has not ended, and `wanted()` says so. */
  private wanted(live: LiveTask, wanted: () => boolean): boolean {
    return this.#options.tasks.holds(live) && !isTerminal(live.task.status?.state) && wanted();
  }

  /** The silence timer of `live` fired: in the task's own log fields and trace, not those of whoever armed it. */
  private silent(live: LiveTask): void {
    const { tasks, agentTimeoutMs } = this.#options;
    const logFields = { agentId: live.agentId, taskId: live.task.id };
    withLogContext(logFields, () =>
      inTraceOf(live.request, () => {
        tasks.enqueue(live, 'the agent timing out', async () => {
          const state = live.task.status?.state;
          // Re-armed while this one waited its turn on the chain (a payment, say): the newer timer decides.
          if (this.#silence.armed(live)) return;
          if (!tasks.holds(live) || isTerminal(state) || isInterrupted(state)) return;
          if (live.request.payment && !live.lastChance) {
            this.askAgain(live);
            this.watchSilence(live, true);
            return;
          }
          const seconds = Math.round(agentTimeoutMs / 100) / 10;
          setStatus(
            live.task,
            TaskState.TASK_STATE_FAILED,
            `The agent did not answer within ${seconds} s; the gateway gave up on the task.`,
          );
          live.task.metadata = {
            ...live.task.metadata,
            error: { code: 'agent_timeout', message: `no reply for ${seconds} s` },
          };
          await this.#options.finish(live);
        });
      }),
    );
  }
}
