/**
 * Whether an agent takes a message's parts: each part that names its media type must match one of the agent's input
 * modes (`defaultInputModes` on its card). A mode may be a range (`image/*`, or every type); parameters
 * (`; charset=…`) and case do not count. A part that names no media type is taken: nothing says it is of a type the
 * agent refuses.
 */
import type { Message } from '@a2a-js/sdk';

/** The first media type among the parts that no input mode accepts, if any. */
export function unacceptedMediaType(message: Message, inputModes: readonly string[]): string | undefined {
  if (inputModes.length === 0) return undefined;
  const modes = inputModes.map(essence);
  for (const part of message.parts) {
    if (!part.mediaType) continue;
    const type = essence(part.mediaType);
    if (!modes.some((mode) => accepts(mode, type))) return part.mediaType;
  }
  return undefined;
}

/** `Text/Plain; charset=utf-8` → `text/plain`. */
function essence(mediaType: string): string {
  return mediaType.split(';', 1)[0]!.trim().toLowerCase();
}

function accepts(mode: string, type: string): boolean {
  if (mode === '*/*' || mode === type) return true;
  return mode.endsWith('/*') && type.startsWith(mode.slice(0, -1));
}
