import fs from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'vite';

/**
 * Mantine's stylesheet with only the components the app uses (issue 14: "per-component Mantine
 * styles"). `import 'virtual:mantine-styles.css'` stands for `@mantine/core/styles.css`: the
 * components imported from `@mantine/core` anywhere in `src` (and by `@mantine/charts`), with every
 * component they are built from, found by walking Mantine's own modules. Their stylesheets come in
 * the order `styles.css` has them, after the baseline, the CSS variables and the global styles.
 */
const VIRTUAL_ID = 'virtual:mantine-styles.css';
/** A virtual module's id, resolved: `\0` keeps other plugins off it; the `.css` ending makes it CSS. */
const RESOLVED_ID = `\0${VIRTUAL_ID}`;
const ALWAYS = ['baseline', 'default-css-variables', 'global'];

const IMPORT_FROM = /(?:import|export)\s*\{([^}]*)\}\s*from\s*["']([^"']+)["']/g;
/** `import * as M from '@mantine/core'`: which components it uses cannot be read. */
const NAMESPACE_IMPORT = /import\s*\*\s*as\s+\w+\s+from\s*["']@mantine\/core["']/;
const ANY_IMPORT = /(?:import|export)\s[^"';]*?from\s*["']([^"']+)["']|import\s*["']([^"']+)["']/g;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return /\.(ts|tsx|mjs)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [file] : [];
  });
}

/** The names a set of files imports from `pkg`. */
function namesImported(files: string[], pkg: string): Set<string> {
  const names = new Set<string>();
  for (const file of files) {
    const source = fs.readFileSync(file, 'utf8');
    if (NAMESPACE_IMPORT.test(source)) {
      throw new Error(`${file}: import Mantine's components by name (build/mantine-styles.ts reads them)`);
    }
    for (const [, list = '', from] of source.matchAll(IMPORT_FROM)) {
      if (from !== pkg) continue;
      for (const item of list.split(',')) {
        const name = item
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)[0];
        if (name && /^[A-Z]/.test(name)) names.add(name);
      }
    }
  }
  return names;
}

/** The stylesheet of the app's Mantine components, `styles.css`'s order kept. */
export function usedMantineCss(srcDir: string, coreDir: string, extraRoots: string[] = []): string {
  const esm = path.join(coreDir, 'esm');
  // Each export of the package and the module it comes from.
  const moduleOf = new Map<string, string>();
  for (const [, list = '', from = ''] of fs
    .readFileSync(path.join(esm, 'index.mjs'), 'utf8')
    .matchAll(IMPORT_FROM)) {
    for (const item of list.split(',')) {
      const name = item.trim().split(/\s+as\s+/)[1] ?? item.trim();
      if (name) moduleOf.set(name, path.join(esm, from));
    }
  }
  const used = namesImported([...sourceFiles(srcDir), ...extraRoots.flatMap(sourceFiles)], '@mantine/core');
  const seen = new Set<string>();
  // Names with no module are types (erased from the build).
  const pending = [...used].flatMap((name) => moduleOf.get(name) ?? []);
  const components = new Set<string>();
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    // A stylesheet is named after the folder of its component (components/Button, utils/InlineInput).
    for (const folder of path.relative(esm, path.dirname(file)).split(path.sep)) components.add(folder);
    for (const [, from, bare] of fs.readFileSync(file, 'utf8').matchAll(ANY_IMPORT)) {
      const target = from ?? bare ?? '';
      if (target.startsWith('.')) pending.push(path.join(path.dirname(file), target));
    }
  }
  const full = fs.readFileSync(path.join(coreDir, 'styles.css'), 'utf8');
  const sheets = [...ALWAYS, ...components]
    .map((name) => path.join(coreDir, 'styles', `${name}.css`))
    .filter((file) => fs.existsSync(file))
    .map((file) => {
      const css = fs.readFileSync(file, 'utf8').trim();
      const at = full.indexOf(css);
      if (at < 0) throw new Error(`${file} is not part of @mantine/core/styles.css`);
      return { at, css };
    });
  return sheets
    .sort((a, b) => a.at - b.at)
    .map((sheet) => sheet.css)
    .join('\n');
}

export function mantineStyles(options: { srcDir: string; coreDir: string; extraRoots?: string[] }): Plugin {
  let serving = false;
  return {
    name: 'moat-mantine-styles',
    configResolved(config) {
      serving = config.command === 'serve';
    },
    resolveId: (id) => (id === VIRTUAL_ID ? RESOLVED_ID : null),
    load(id) {
      if (id !== RESOLVED_ID) return null;
      // The dev server serves the whole stylesheet: a component imported while it runs is styled.
      if (serving) return fs.readFileSync(path.join(options.coreDir, 'styles.css'), 'utf8');
      return usedMantineCss(options.srcDir, options.coreDir, options.extraRoots);
    },
  };
}
