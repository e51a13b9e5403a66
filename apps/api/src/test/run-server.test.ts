import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { afterAll, describe, expect, it, vi } from 'vitest';
// @ts-expect-error: plain JavaScript of npm start's, without declarations
import { runServer, setStartFlags, V8_DEFAULTS_FILE } from '../../../../scripts/run-server.mjs';
import { LENT_IMPORT } from '../lib/on-first-use.ts';

// The layout of the API: the compiled server in dist/, the import lender in src/lib/.
const api = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-run-server-'));
fs.mkdirSync(path.join(api, 'dist'));
fs.mkdirSync(path.join(api, 'src/lib'), { recursive: true });
fs.copyFileSync(
  path.join(import.meta.dirname, '../lib/import-package.mjs'),
  path.join(api, 'src/lib/import-package.mjs'),
);
afterAll(() => fs.rmSync(api, { recursive: true, force: true }));

interface Ran {
  label: string;
  dirname: string;
  filename: string;
}
const state = globalThis as unknown as { ranServer: Ran; loaded: Promise<string> };

/** A stand-in for the compiled server: records what it ran, loads a package through the lent import(), says it started. */
function writeServer(file: string, label: string) {
  fs.writeFileSync(
    file,
    `globalThis.ranServer = { label: ${JSON.stringify(label)}, dirname: __dirname, filename: __filename };
globalThis.loaded = globalThis[Symbol.for('moat.importPackage')]('fflate').then((m) => typeof m.unzipSync);
process.emit('moat:started');
`,
  );
}

/** The cache is written just after the start. */
const afterStart = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('npm start runs the compiled server with V8 code cache (scripts/run-server.mjs)', () => {
  const file = path.join(api, 'dist/server.cjs');

  it('writes the cache after the first start and takes it at the next; packages load either way', async () => {
    writeServer(file, 'first');
    expect(runServer(file)).toEqual({ usedCache: false });
    expect(state.ranServer).toEqual({ label: 'first', dirname: path.dirname(file), filename: file });
    expect(await state.loaded).toBe('function');
    await afterStart();
    expect(fs.existsSync(`${file}.cache`)).toBe(true);
    expect(fs.readdirSync(path.dirname(file)).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    expect(runServer(file)).toEqual({ usedCache: true });
    expect(state.ranServer.label).toBe('first');
    expect(await state.loaded).toBe('function');
    expect(LENT_IMPORT in globalThis).toBe(true);
  });

  it("never runs another build's cache: a rebuilt script of the same length is compiled afresh", async () => {
    const before = fs.statSync(file).size;
    writeServer(file, 'other');
    expect(fs.statSync(file).size).toBe(before);
    fs.utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    expect(runServer(file)).toEqual({ usedCache: false });
    expect(state.ranServer.label).toBe('other');
    await afterStart();
    expect(runServer(file)).toEqual({ usedCache: true });
    expect(state.ranServer.label).toBe('other');
  });

  it('ignores a damaged cache file and writes a good one', async () => {
    fs.writeFileSync(`${file}.cache`, 'not a cache');
    expect(runServer(file)).toEqual({ usedCache: false });
    expect(state.ranServer.label).toBe('other');
    await afterStart();
    expect(runServer(file)).toEqual({ usedCache: true });
  });

  it("raises V8's interrupt budget while starting and puts back the one the build noted for this V8", () => {
    const set = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => undefined);
    const dist = path.join(api, 'dist');
    const note = (content: object) =>
      fs.writeFileSync(path.join(dist, V8_DEFAULTS_FILE), JSON.stringify(content));
    try {
      note({ v8: process.versions.v8, interruptBudget: 12_345 });
      const endStart = setStartFlags(dist);
      expect(set.mock.calls.flat()).toEqual([
        expect.stringMatching(/^--wasm-tiering-budget=\d+$/),
        '--interrupt-budget=1000000',
      ]);
      set.mockClear();
      endStart();
      expect(set.mock.calls.flat()).toEqual(['--interrupt-budget=12345']);

      // The operator's own budget (NODE_OPTIONS) is kept.
      const nodeOptions = process.env.NODE_OPTIONS;
      process.env.NODE_OPTIONS = `${nodeOptions ?? ''} --interrupt-budget=50000`;
      set.mockClear();
      setStartFlags(dist)();
      expect(set.mock.calls.flat()).toEqual([expect.stringMatching(/^--wasm-tiering-budget=/)]);
      if (nodeOptions === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = nodeOptions;

      // Another Node's V8, a damaged note or none: V8's interrupt budget is left alone.
      for (const content of [{ v8: '1.2.3', interruptBudget: 12_345 }, { v8: process.versions.v8 }, null]) {
        if (content) note(content);
        else fs.rmSync(path.join(dist, V8_DEFAULTS_FILE));
        set.mockClear();
        setStartFlags(dist)();
        expect(set.mock.calls.flat()).toEqual([expect.stringMatching(/^--wasm-tiering-budget=/)]);
      }
    } finally {
      set.mockRestore();
    }
  });
});
