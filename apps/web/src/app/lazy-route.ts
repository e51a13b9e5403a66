import type { ComponentType, ReactElement } from 'react';
import { withAreaTexts } from '../lib/i18n';

/**
 * A lazy route's module, with the areas' words (`withAreaTexts`) unless it shows only the words
 * the console starts with (`{ areaTexts: false }`: the shell and the area frame, which the
 * signed-in dashboard shows first; `i18n.test.ts` checks them).
 */
const loadRoute = <M>(load: () => Promise<M>, areaTexts: boolean) =>
  areaTexts ? withAreaTexts(load) : load();

interface LazyOptions {
  areaTexts?: boolean;
}

/** A route `lazy` that loads a module and uses one of its named components. */
export function lazyComponent<K extends string, M extends Record<K, ComponentType>>(
  load: () => Promise<M>,
  name: K,
  { areaTexts = true }: LazyOptions = {},
): () => Promise<{ Component: ComponentType }> {
  return async () => ({ Component: (await loadRoute(load, areaTexts))[name] });
}

/** A route `lazy` that loads a module and renders an element built from it (for props). */
export function lazyElement<M>(
  load: () => Promise<M>,
  render: (module: M) => ReactElement,
  { areaTexts = true }: LazyOptions = {},
): () => Promise<{ element: ReactElement }> {
  return async () => ({ element: render(await loadRoute(load, areaTexts)) });
}
