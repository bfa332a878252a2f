/**
 * A result too large for one message of the network, sent as several artifact chunks (binding: `append` /
 * `last_chunk` on `task_status` artifacts), followed by a `task_result` that carries no result of its own. The
 * gateway reassembles the chunks into the task's artifact, as it does for any streamed artifact.
 *
 * A string result becomes the `result` artifact (as the gateway maps a result that fits), cut into text pieces;
 * artifacts go part after part, a text part too large for one message cut the same way. A data part too large for
 * one message cannot be cut: the task fails, saying so.
 */
import type { WireArtifact, WirePart } from './envelope.ts';

/** What the agent runtime sends for a large result: chunks first, then the final result without them. */
export type ChunkPlan = { kind: 'chunks'; chunks: WireArtifact[] } | { kind: 'too-large'; message: string };

/**
 * Cuts a completed result into artifact chunks whose parts each encode in at most `partBytes` bytes of JSON (the
 * budget of one message, less the envelope around a chunk).
 */
export function planResultChunks(result: unknown, artifacts: WireArtifact[] | undefined, partBytes: number): ChunkPlan {
  const whole: WireArtifact[] = [];
  if (result !== undefined && result !== null) {
    whole.push({
      artifact_id: 'result',
      name: 'result',
      parts: [typeof result === 'string' ? { text: result } : { data: result as Record<string, unknown> }],
    });
  }
  whole.push(...(artifacts ?? []));
  const chunks: WireArtifact[] = [];
  for (const artifact of whole) {
    const pieces: WirePart[] = [];
    for (const part of artifact.parts) {
      if (jsonBytes(part) <= partBytes) {
        pieces.push(part);
      } else if ('text' in part && typeof part.text === 'string' && Object.keys(part).length === 1) {
        for (const text of cutText(part.text, partBytes - jsonBytes({ text: '' }))) pieces.push({ text });
      } else {
        return {
          kind: 'too-large',
          message: `The result has a part of ${jsonBytes(part)} bytes; one message of the network carries at most ${partBytes}, and only text can be split.`,
        };
      }
    }
    pieces.forEach((piece, index) => {
      const { parts: _parts, append: _append, last_chunk: _last, ...fields } = artifact;
      chunks.push({ ...fields, parts: [piece], append: index > 0, last_chunk: index === pieces.length - 1 });
    });
  }
  return { kind: 'chunks', chunks };
}

/** Pieces of `text` whose JSON string bodies each take at most `maxBytes` bytes; never splits a code point. */
function cutText(text: string, maxBytes: number): string[] {
  const pieces: string[] = [];
  let piece = '';
  let size = 0;
  for (const char of text) {
    const charBytes = jsonBytes(char) - 2; // without the quotes
    if (size + charBytes > maxBytes && piece !== '') {
      pieces.push(piece);
      piece = '';
      size = 0;
    }
    piece += char;
    size += charBytes;
  }
  if (piece !== '' || pieces.length === 0) pieces.push(piece);
  return pieces;
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}
