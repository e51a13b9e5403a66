import { snapshotEmbedded } from '../../db/backup/snapshot.ts';
import { AppError } from '../../errors.ts';
import { type Command, HELP, required, UsageError } from './command.ts';

/** The db:* commands choose their own way to the database (cli/database-commands.ts), never the bridge. */
const runByTheCli = (name: string) => async (): Promise<string> => {
  throw new AppError(
    'bad_request',
    `${name} is run by the CLI itself (npm run cli -- ${name}), not through the server`,
  );
};

export const databaseCommands: Record<string, Command> = {
  'db:backup': {
    summary:
      "Back up the whole database, a running server included (mail keeps flowing), to FILE: gzip'd JSON lines, mode 0600; secrets stay sealed",
    usage: 'db:backup --out FILE',
    options: { ...HELP, out: { type: 'string' } },
    standalone: true,
    run: runByTheCli('db:backup'),
  },
  'db:restore': {
    summary:
      'Restore a backup into an empty DATA_DIR (no server running) or an empty DATABASE_URL database, migrated to its schema and on to this version',
    usage: 'db:restore --from FILE',
    options: { ...HELP, from: { type: 'string' } },
    standalone: true,
    run: runByTheCli('db:restore'),
  },
  'db:copy': {
    summary:
      'Copy the embedded database (DATA_DIR, server stopped) into an empty PostgreSQL database, counts checked; prints how to start on it',
    usage: 'db:copy --to postgres://USER@HOST:PORT/DATABASE',
    options: { ...HELP, to: { type: 'string' } },
    standalone: true,
    run: runByTheCli('db:copy'),
  },
  'db:snapshot': {
    summary: "db:backup's step inside a running server: a copy of the embedded database as of now",
    usage: 'db:snapshot --for-pid PID',
    options: { ...HELP, 'for-pid': { type: 'string' } },
    hidden: true,
    async run({ values }, ctx) {
      const pid = Number(required(values, 'for-pid'));
      if (!Number.isSafeInteger(pid) || pid <= 0) throw new UsageError('--for-pid must be a process id');
      try {
        return JSON.stringify(await snapshotEmbedded(ctx.db, pid));
      } catch (error) {
        throw new AppError('conflict', `Cannot copy the embedded database: ${(error as Error).message}`);
      }
    },
  },
};
