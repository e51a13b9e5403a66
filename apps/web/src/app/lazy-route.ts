import type { ComponentType, ReactElement } from 'react';
import { withAreaTexts } from '../lib/i18n';

/** `areaTexts`: whether the route waits for the areas' words (`withAreaTexts`); it does by default. */
interface LazyOptions {
  areaTexts?: boolean;
}

/** A route `lazy` that loads a module and uses one of its named components. */
export function lazyComponent<K extends string, M extends Record<K, ComponentType>>(
  load: () => Promise<M>,
  name: K,
  { areaTexts = true }: LazyOptions = {},
): () => Promise<{ Component: ComponentType }> {
  return async () => ({ Component: (await withAreaTexts(load, areaTexts))[name] });
}

/** A route `lazy` that loads a module and renders an element built from it (for props). */
export function lazyElement<M>(
  load: () => Promise<M>,
  render: (module: M) => ReactElement,
  { areaTexts = true }: LazyOptions = {},
): () => Promise<{ element: ReactElement }> {
  return async () => ({ element: render(await withAreaTexts(load, areaTexts)) });
}
