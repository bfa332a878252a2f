/**
 * A skill's abort signal, made only when the skill asks for it. Most skills never do, and an AbortController (its
 * signal an EventTarget with two maps of its own) cost about 0.7 µs per task to make; the task's cancel or the
 * agent's stop is kept until then, so a signal made late is already aborted with the same reason.
 */
export class LazyAbort {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  /** As AbortController's: the first reason is the one kept, a later abort does nothing. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}
