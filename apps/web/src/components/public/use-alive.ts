import { useEffect, useRef } from 'react';

/**
 * True while the component is on the page, false once it has gone: an answer arriving later
 * changes nothing.
 */
export function useAlive(): { readonly current: boolean } {
  const alive = useRef(true);
  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
    };
  }, []);
  return alive;
}
