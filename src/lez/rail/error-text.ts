/** A thrown value as one line of text, for outcome messages (callbacks may throw anything). */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
