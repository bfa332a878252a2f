/**
 * What a peer binding's agents can do of A2A, as data: the served card, the README's table and the engine's
 * choices (whether a cancel can be expected to take, whether progress comes) read it, rather than each knowing the
 * bindings by name. The per-binding pages (docs/bindings/) say the same in words.
 */
export interface PeerCapabilities {
  /**
   * - `while-running`: a cancel is honoured until the task ends, and answered;
   * - `same-batch`: only when it reaches the agent together with its request; otherwise never answered.
   */
  readonly cancel: 'while-running' | 'same-batch';
  /** Whether the agent reports progress (`working` and the like) before its one result. */
  readonly progress: boolean;
  /**
   * - `none`: a task is one request and its result;
   * - `owner-approval`: a task may wait for the agent's owner, who alone decides (the caller cannot add input);
   * - `continuation`: the caller answers `input-required` with a message on the same task.
   */
  readonly multiTurn: 'none' | 'owner-approval' | 'continuation';
  /** What a result is: the skill's JSON output (a data artifact) or text. */
  readonly result: 'data' | 'text';
}
