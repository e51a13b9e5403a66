import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Plugin } from 'vite';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Text files worth compressing; images other than SVG and fonts are compressed already. */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|webmanifest|xml)$/;
/** Below this a compressed copy saves less than the headers it costs. */
const MIN_BYTES = 1024;

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : [full];
  });
}

/**
 * Beside every compressible file of the build, its Brotli (`.br`, quality 11) and gzip (`.gz`,
 * level 9) copies, written once at build time so the server only picks one by the request's
 * Accept-Encoding (issue 14). A copy that is not smaller than the file is not written.
 */
export function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'moat-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      const files = filesUnder(outDir).filter((f) => COMPRESSIBLE.test(f));
      await Promise.all(
        files.map(async (file) => {
          const source = await fs.promises.readFile(file);
          if (source.length < MIN_BYTES) return;
          const copies = await Promise.all([
            brotli(source, {
              params: {
                [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
                [zlib.constants.BROTLI_PARAM_SIZE_HINT]: source.length,
              },
            }).then((bytes) => ({ ext: '.br', bytes })),
            gzip(source, { level: 9 }).then((bytes) => ({ ext: '.gz', bytes })),
          ]);
          for (const { ext, bytes } of copies) {
            if (bytes.length < source.length) await fs.promises.writeFile(file + ext, bytes);
          }
        }),
      );
    },
  };
}
