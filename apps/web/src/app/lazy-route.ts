import type { ComponentType, ReactElement } from 'react';

/** A route `lazy` that loads a module and uses one of its named components. */
export function lazyComponent<K extends string, M extends Record<K, ComponentType>>(
  load: () => Promise<M>,
  name: K,
): () => Promise<{ Component: ComponentType }> {
  return async () => ({ Component: (await load())[name] });
}

/** A route `lazy` that loads a module and renders an element built from it (for props). */
export function lazyElement<M>(
  load: () => Promise<M>,
  render: (module: M) => ReactElement,
): () => Promise<{ element: ReactElement }> {
  return async () => ({ element: render(await load()) });
}
