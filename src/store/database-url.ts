/**
 * What kind of database a `database` setting names, decided from the string alone: apart from the PostgreSQL
 * driver, so that code that only asks (the demo, before its devnet starts) does not load it.
 */

/** Whether a `database` setting names a PostgreSQL server rather than a SQLite file. */
export function isPostgresUrl(database: string): boolean {
  return /^postgres(?:ql)?:\/\//.test(database);
}
