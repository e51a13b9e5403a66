import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';

/**
 * A fault the database itself raises, for one test (as a bug or a broken dependency would): a
 * trigger `name` that runs the PL/pgSQL `body` before each insert into `table`. Resolves to what
 * removes it again.
 */
export async function beforeInsertFault(db: Db, name: string, table: string, body: string) {
  await db.execute(
    sql.raw(`create function ${name}() returns trigger language plpgsql as $$
      begin
        ${body}
        return new;
      end $$`),
  );
  await db.execute(
    sql.raw(`create trigger ${name} before insert on ${table} for each row execute function ${name}()`),
  );
  return async () => {
    await db.execute(sql.raw(`drop trigger ${name} on ${table}`));
    await db.execute(sql.raw(`drop function ${name}()`));
  };
}
