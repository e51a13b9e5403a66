import { describe, expect, it } from 'vitest';
import { databaseNotice } from './database-notice.ts';

const base = {
  dataDirSet: false,
  databaseUrlSet: false,
  dataDir: '/srv/moat/data',
  cwd: '/srv/moat',
  bridge: null,
  existed: true,
  hasDatabase: () => false,
};

describe('databaseNotice (the CLI run without DATA_DIR)', () => {
  it('says which embedded database it opened', () => {
    expect(databaseNotice(base)).toBe('DATA_DIR is not set: used the embedded database in /srv/moat/data.\n');
  });

  it('says when that database was just created, empty', () => {
    expect(databaseNotice({ ...base, existed: false })).toBe(
      'DATA_DIR is not set: used the embedded database in /srv/moat/data (a new, empty one).\n',
    );
  });

  it("says it used the running server through the CLI bridge, and that server's DATA_DIR", () => {
    expect(databaseNotice({ ...base, bridge: { pid: 4242 } })).toBe(
      'DATA_DIR is not set: the running Moat server (pid 4242) did this through the CLI bridge; its DATA_DIR is /srv/moat/data.\n',
    );
  });

  it('names a data folder where the command was typed that it did not use', () => {
    const notice = databaseNotice({
      ...base,
      cwd: '/home/ann/other',
      hasDatabase: (dir) => dir === '/home/ann/other/data',
    });
    expect(notice).toBe(
      'DATA_DIR is not set: used the embedded database in /srv/moat/data.\n' +
        '/home/ann/other/data holds another database, not used: run with DATA_DIR=/home/ann/other/data to use it.\n',
    );
    // The folder it used is not named twice.
    expect(databaseNotice({ ...base, hasDatabase: () => true })).not.toContain('another database');
  });

  it('says nothing when DATA_DIR or DATABASE_URL names the database', () => {
    expect(databaseNotice({ ...base, dataDirSet: true })).toBeNull();
    expect(databaseNotice({ ...base, databaseUrlSet: true })).toBeNull();
  });
});
