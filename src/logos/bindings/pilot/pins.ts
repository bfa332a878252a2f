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
import { DEFAULT_MAX_AGENTS } from '../../announcement-rate.ts';

const Pins = z.record(z.string(), z.object({ signingKey: z.string(), inbox: z.string() }));

/** What recording a pin came to (`PilotPins.pin`). */
export type PinOutcome = 'pinned' | 'inbox-taken' | 'full';

export class PilotPins {
  readonly #file: string | undefined;
  readonly #pins: Map<string, { signingKey: string; inbox: string }>;
  /** The key pinned at each inbox: that of the first identity pinned there (keyAt, at every reply). */
  readonly #atInbox = new Map<string, string>();
  readonly #max: number;

  /**
   * `maxPins`: identities pinned at most, by default as many as the directory lists agents: anyone can make fresh
   * ones, and each costs the file a rewrite.
   */
  constructor(file?: string, maxPins = DEFAULT_MAX_AGENTS) {
    this.#file = file;
    this.#max = maxPins;
    const stored = file && existsSync(file) ? Pins.parse(JSON.parse(readFileSync(file, 'utf8'))) : {};
    this.#pins = new Map(Object.entries(stored));
    for (const { signingKey, inbox } of this.#pins.values())
      if (!this.#atInbox.has(inbox)) this.#atInbox.set(inbox, signingKey);
  }

  /** The key pinned for an agent identity. */
  keyOf(npk: string): string | undefined {
    return this.#pins.get(npk)?.signingKey;
  }

  /** The key pinned for the agent last seen at `inbox`. */
  keyAt(inbox: string): string | undefined {
    return this.#atInbox.get(inbox);
  }

  /**
   * Records a verified card's pin (its key is the pinned one, or the first seen), and where the agent listens.
   * Records nothing when another identity's key is pinned at that inbox (`inbox-taken`: replies to a task sent there
   * are checked against one key, keyAt, the first), nor a new identity once `maxPins` are pinned (`full`).
   */
  pin(npk: string, signingKey: string, inbox: string): PinOutcome {
    const pinnable = this.pinnable(npk, signingKey, inbox);
    if (pinnable !== 'pinned') return pinnable;
    const held = this.#pins.get(npk);
    if (held?.signingKey === signingKey && held.inbox === inbox) return 'pinned';
    const atInbox = this.keyAt(inbox);
    this.#pins.set(npk, { signingKey, inbox });
    if (atInbox === undefined) this.#atInbox.set(inbox, signingKey);
    // The identity moved: its old inbox keeps a key only if another identity is pinned there.
    if (held && held.inbox !== inbox) {
      const other = [...this.#pins.values()].find((pin) => pin.inbox === held.inbox);
      if (other) this.#atInbox.set(held.inbox, other.signingKey);
      else this.#atInbox.delete(held.inbox);
    }
    this.#save();
    return 'pinned';
  }

  /** What `pin` would come to, recording nothing. */
  pinnable(npk: string, signingKey: string, inbox: string): PinOutcome {
    const atInbox = this.keyAt(inbox);
    if (atInbox !== undefined && atInbox !== signingKey) return 'inbox-taken';
    if (!this.#pins.has(npk) && this.#pins.size >= this.#max) return 'full';
    return 'pinned';
  }

  /** Unpins the identities seen at `inbox`: the directory forgot its agent (directory.ts `forgetUnheard`). */
  forgetInbox(inbox: string): void {
    const before = this.#pins.size;
    for (const [npk, pin] of this.#pins) if (pin.inbox === inbox) this.#pins.delete(npk);
    this.#atInbox.delete(inbox);
    if (this.#pins.size !== before) this.#save();
  }

  #save(): void {
    if (!this.#file) return;
    mkdirSync(dirname(this.#file), { recursive: true });
    // Written whole, then renamed: a crash mid-write leaves the previous pins, never half of them.
    writeFileSync(`${this.#file}.tmp`, JSON.stringify(Object.fromEntries(this.#pins)), { mode: 0o600 });
    renameSync(`${this.#file}.tmp`, this.#file);
  }
}
