/** The directory as the DirectoryObject last heard it, for the front Worker and the TaskObjects. */
import type { DirectorySnapshotEntry } from './directory-snapshot.ts';
import type { WorkerEnv } from './worker-env.ts';

export const DIRECTORY_OBJECT_NAME = 'directory';

/** The entries, or the directory object's answer when it could not start (its node out of reach): for the client. */
export type HeardDirectory = { ok: true; entries: DirectorySnapshotEntry[] } | { ok: false; response: Response };

export async function directoryEntries(env: WorkerEnv): Promise<HeardDirectory> {
  const stub = env.DIRECTORY.get(env.DIRECTORY.idFromName(DIRECTORY_OBJECT_NAME));
  const response = (await stub.fetch('https://directory.internal/agents')) as unknown as Response;
  if (!response.ok) return { ok: false, response };
  return { ok: true, entries: (await response.json()) as DirectorySnapshotEntry[] };
}
