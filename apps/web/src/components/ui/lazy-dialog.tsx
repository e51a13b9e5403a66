import { type ComponentType, lazy, Suspense, useRef } from 'react';

/**
 * A dialog whose code (Mantine's modal, its scroll lock, what it shows) loads when it is first
 * opened, not with the page that may open it: the signed-in dashboard's first load stays lean.
 * Once opened it stays mounted, so its closing transition and its state behave as before.
 */
export function lazyDialog<P extends { opened: boolean }>(load: () => Promise<ComponentType<P>>) {
  const Dialog = lazy(async () => ({ default: await load() }));
  return function LazyDialog(props: P) {
    const wanted = useRef(props.opened);
    if (props.opened) wanted.current = true;
    if (!wanted.current) return null;
    return (
      <Suspense fallback={null}>
        <Dialog {...props} />
      </Suspense>
    );
  };
}
