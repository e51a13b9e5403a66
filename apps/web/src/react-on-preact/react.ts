/**
 * `react` for the console's production build: Preact's compatibility layer (about 5 KB gzip
 * instead of React DOM's 60), plus what Mantine 9 imports from React 19.2 that it lacks.
 */
import { Fragment, type ReactNode } from 'preact/compat';

// @ts-expect-error preact/compat's types are an `export =` module; its ES module exports React's names.
export * from 'preact/compat';
export { default } from 'preact/compat';

/**
 * React 19.2's `<Activity>`, which Mantine uses only for `keepMounted` transitions, collapses and
 * tab panels (Moat uses none of them): visible, it shows its children; hidden, it shows nothing.
 * Unlike React's, a hidden one does not keep its children's state.
 */
export function Activity({
  mode = 'visible',
  children,
}: {
  mode?: 'visible' | 'hidden';
  children?: ReactNode;
}) {
  return mode === 'hidden' ? null : Fragment({ children });
}
