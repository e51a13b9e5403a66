import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { usedMantineCss } from './mantine-styles.ts';

const CORE = path.resolve(import.meta.dirname, '../node_modules/@mantine/core');
const sheet = (name: string) => fs.readFileSync(path.join(CORE, 'styles', `${name}.css`), 'utf8').trim();

function appUsing(source: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-mantine-'));
  fs.writeFileSync(path.join(dir, 'Screen.tsx'), source);
  return dir;
}

describe("Mantine's stylesheet, only what the app uses", () => {
  it('keeps the components imported, those they are built from, and the base, in styles.css order', () => {
    const css = usedMantineCss(
      appUsing(`import { Button, type MantineTheme, Checkbox as Box } from '@mantine/core';`),
      CORE,
    );
    // Button is built from UnstyledButton and Loader; Checkbox from InlineInput (under utils/).
    for (const name of [
      'baseline',
      'default-css-variables',
      'global',
      'Button',
      'UnstyledButton',
      'Loader',
      'Checkbox',
      'InlineInput',
    ]) {
      expect(css, name).toContain(sheet(name));
    }
    for (const name of ['Table', 'Tabs', 'Modal', 'Stepper']) expect(css, name).not.toContain(sheet(name));
    expect(css.indexOf(sheet('baseline'))).toBe(0);
    const full = fs.readFileSync(path.join(CORE, 'styles.css'), 'utf8');
    const order = (name: string) => css.indexOf(sheet(name));
    const fullOrder = (name: string) => full.indexOf(sheet(name));
    expect(Math.sign(order('UnstyledButton') - order('Button'))).toBe(
      Math.sign(fullOrder('UnstyledButton') - fullOrder('Button')),
    );
  });

  it('reads components re-exported by a barrel file, and refuses a namespace import', () => {
    const css = usedMantineCss(appUsing(`export { Table } from '@mantine/core';`), CORE);
    expect(css).toContain(sheet('Table'));
    expect(() => usedMantineCss(appUsing(`import * as M from '@mantine/core';`), CORE)).toThrow(/by name/);
  });

  it('leaves out every component when none is imported, and ignores test files', () => {
    const dir = appUsing(`export const x = 1;`);
    fs.writeFileSync(path.join(dir, 'Screen.test.tsx'), `import { Table } from '@mantine/core';`);
    const css = usedMantineCss(dir, CORE);
    expect(css).toBe([sheet('baseline'), sheet('default-css-variables'), sheet('global')].join('\n'));
  });
});
