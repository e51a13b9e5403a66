/**
 * `node --import tsx e2e/support/make-data-template.ts DIR`: an embedded database in DIR/pgdata,
 * migrated and empty (no tenant, no key), as `npm start` leaves a new data folder before it seeds
 * it. Copied for each test server (server.ts, `fromTemplate`), so a spec's Moat starts in about
 * a second instead of creating and migrating a database (about five).
 */
import path from 'node:path';
import { openPglite } from '../../apps/api/src/db/client.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: make-data-template.ts DIR');
const database = await openPglite(path.join(dir, 'pgdata'));
await database.migrate();
await database.close();
