/**
 * The bounds on what announcements make the gateway hold and do, shared by the gateway's own discovery
 * (discovery.ts) and the peer bindings' (peer-discovery.ts): per address, an address announced more than
 * `FLOOD_LIMIT` times in `FLOOD_WINDOW_MS` is a flood, cut off before any signature is checked (the costly part),
 * and counted as `flood`; in all, the agents kept (`DEFAULT_MAX_AGENTS`).
 */

/**
 * The default bound on the agents heard on the network that the gateway keeps (the directory's `maxAgents`, and
 * pilot's first-contact pins): fresh addresses cost an announcer nothing, so what they make the gateway hold is
 * bounded in number as well as in rate.
 */
export const DEFAULT_MAX_AGENTS = 10_000;

/** Announcements an address may have in `FLOOD_WINDOW_MS` (an honest agent makes one every 30 s). */
export const FLOOD_LIMIT = 10;
export const FLOOD_WINDOW_MS = 60_000;
/** Addresses tracked at once: anyone can announce under any number of them, so idle ones are forgotten first. */
const TRACKED_LIMIT = 10_000;

export class AnnouncementRate {
  /** Per address: announcements in the current window, and when it started. */
  readonly #rates = new Map<string, { count: number; since: number }>();

  /** Counts an announcement against its address's window; true when the address is over the limit. */
  flooding(address: string): boolean {
    const now = Date.now();
    let rate = this.#rates.get(address);
    if (!rate || now - rate.since >= FLOOD_WINDOW_MS) {
      if (this.#rates.size >= TRACKED_LIMIT) this.#forget(now);
      rate = { count: 0, since: now };
      this.#rates.set(address, rate);
    }
    rate.count++;
    return rate.count > FLOOD_LIMIT;
  }

  /**
   * Makes room: the addresses whose window is over, and if that is not a tenth of them (more fresh addresses in a
   * window than are tracked), the longest tracked too. A tenth at a time, so that the look is made once per that
   * many new addresses, not at each.
   */
  #forget(now: number): void {
    for (const [key, value] of this.#rates) if (now - value.since >= FLOOD_WINDOW_MS) this.#rates.delete(key);
    for (const key of this.#rates.keys()) {
      if (this.#rates.size < TRACKED_LIMIT * 0.9) break;
      this.#rates.delete(key);
    }
  }
}
