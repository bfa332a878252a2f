/** Where the demo keeps its devnet chain and the paid agent's books: never a path made of a database URL. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoStateDir } from '../../src/cli/demo-state-dir.ts';

describe('demoStateDir', () => {
  it('is the SQLite file’s folder, and nothing for an in-memory database', () => {
    expect(demoStateDir('.data/logos-a2a.db')).toBe('.data');
    expect(demoStateDir(join('srv', 'a2a', 'gateway.db'))).toBe(join('srv', 'a2a'));
    expect(demoStateDir(':memory:')).toBeUndefined();
  });

  it('names a PostgreSQL database’s folder by a hash, with no part of the URL in it', () => {
    expect(demoStateDir('postgres://logos:Sup3r-s3cret@db.internal:5432/logos_a2a')).toMatch(
      /^\.data[/\\]postgres-[0-9a-f]{16}$/,
    );
  });

  it('is the same folder for the same server and database whatever the login, password or query', () => {
    const dir = demoStateDir('postgres://logos:one@db.internal:5432/logos_a2a');
    for (const same of [
      'postgres://logos:two@db.internal:5432/logos_a2a',
      'postgresql://admin@db.internal:5432/logos_a2a',
      'postgres://db.internal:5432/logos_a2a?password=three&sslmode=require',
      // A password with an "@" not percent-encoded: the server is what follows the last one.
      'postgres://logos:p@ss@db.internal:5432/logos_a2a',
    ]) {
      expect(demoStateDir(same), same).toBe(dir);
    }
    for (const other of [
      'postgres://logos:one@db.internal:5433/logos_a2a',
      'postgres://logos:one@db2.internal:5432/logos_a2a',
      'postgres://logos:one@db.internal:5432/other',
    ]) {
      expect(demoStateDir(other), other).not.toBe(dir);
    }
  });
});
