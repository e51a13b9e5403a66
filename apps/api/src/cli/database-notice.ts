import path from 'node:path';

/**
 * The CLI's line about which database it used, when DATA_DIR was not given (it defaults to
 * ./data of the project, wherever the command was typed): the embedded database's folder — a new,
 * empty one if nothing was there — or the running server it asked through the CLI bridge, with that
 * server's DATA_DIR; and a `data` folder where the command was typed that was not the one used.
 * Null when DATA_DIR or DATABASE_URL says where the database is.
 */
export function databaseNotice(input: {
  dataDirSet: boolean;
  databaseUrlSet: boolean;
  /** The DATA_DIR used, resolved. */
  dataDir: string;
  /** Where the command was typed (npm's INIT_CWD). */
  cwd: string;
  /** The running server that did the work, if the CLI asked one. */
  bridge: { pid: number } | null;
  /** The embedded database was there before this command (false: it was just created). */
  existed: boolean;
  /** Whether a folder holds an embedded database. */
  hasDatabase: (dataDir: string) => boolean;
}): string | null {
  if (input.dataDirSet || input.databaseUrlSet) return null;
  const used = path.resolve(input.dataDir);
  const lines = [
    input.bridge
      ? `DATA_DIR is not set: the running Moat server (pid ${input.bridge.pid}) did this through the CLI bridge; its DATA_DIR is ${used}.`
      : `DATA_DIR is not set: used the embedded database in ${used}${input.existed ? '' : ' (a new, empty one)'}.`,
  ];
  const here = path.resolve(input.cwd, 'data');
  if (here !== used && input.hasDatabase(here)) {
    lines.push(`${here} holds another database, not used: run with DATA_DIR=${here} to use it.`);
  }
  return `${lines.join('\n')}\n`;
}
