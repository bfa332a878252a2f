/**
 * The gateway's first-contact pins of pilot agents (docs/bindings/pilot.md): the signing key first seen for an
 * agent identity (`_logos.npk`), which every later card of that identity and every reply of the agent must be signed
 * by, and the inbox it was seen at, where the engine finds the key of a task's agent. Kept in one JSON file of the
 * gateway's data folder, so that a restart neither forgets a pin (and lets another key take the identity) nor loses
 * the key its tasks' replies are checked against; in memory only where there is no data folder.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';

const Pins = z.record(z.string(), z.object({ signingKey: z.string(), inbox: z.string() }));
type Pins = z.infer<typeof Pins>;

export class PilotPins {
  readonly #file: string | undefined;
  readonly #pins: Pins;

  constructor(file?: string) {
    this.#file = file;
    this.#pins = file && existsSync(file) ? Pins.parse(JSON.parse(readFileSync(file, 'utf8'))) : {};
  }

  /** The key pinned for an agent identity. */
  keyOf(npk: string): string | undefined {
    return this.#pins[npk]?.signingKey;
  }

  /** The key pinned for the agent last seen at `inbox`. */
  keyAt(inbox: string): string | undefined {
    return Object.values(this.#pins).find((pin) => pin.inbox === inbox)?.signingKey;
  }

  /**
   * Records a verified card's pin (its key is the pinned one, or the first seen), and where the agent listens; false,
   * recording nothing, when another identity's key is pinned at that inbox: replies to a task sent there are checked
   * against one key (keyAt), the first.
   */
  pin(npk: string, signingKey: string, inbox: string): boolean {
    const atInbox = this.keyAt(inbox);
    if (atInbox !== undefined && atInbox !== signingKey) return false;
    const held = this.#pins[npk];
    if (held?.signingKey === signingKey && held.inbox === inbox) return true;
    this.#pins[npk] = { signingKey, inbox };
    if (!this.#file) return true;
    mkdirSync(dirname(this.#file), { recursive: true });
    // Written whole, then renamed: a crash mid-write leaves the previous pins, never half of them.
    writeFileSync(`${this.#file}.tmp`, JSON.stringify(this.#pins), { mode: 0o600 });
    renameSync(`${this.#file}.tmp`, this.#file);
    return true;
  }
}
