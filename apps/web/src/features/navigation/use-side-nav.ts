import { useMediaQuery } from '@mantine/hooks';
import {
  MENU_FOLD_DELAY_MS,
  MENU_NARROW_BREAKPOINT_PX,
  MENU_WIDTH_LOCKED_NARROW_PX,
  MENU_WIDTH_LOCKED_PX,
  MENU_WIDTH_MINI_NARROW_PX,
  MENU_WIDTH_MINI_PX,
} from '@moat/contracts/constants';
import { type FocusEvent, useCallback, useEffect, useRef, useState } from 'react';

export const NAV_LOCK_STORAGE_KEY = 'moat.navLocked';

/** Widths of SPEC §9: 250 / 70 px, and 220 / 64 px in a window narrower than 1530 px. */
export function menuWidths(narrowWindow: boolean): { locked: number; mini: number } {
  return narrowWindow
    ? { locked: MENU_WIDTH_LOCKED_NARROW_PX, mini: MENU_WIDTH_MINI_NARROW_PX }
    : { locked: MENU_WIDTH_LOCKED_PX, mini: MENU_WIDTH_MINI_PX };
}

function readLocked(): boolean {
  try {
    return window.localStorage.getItem(NAV_LOCK_STORAGE_KEY) !== '0';
  } catch {
    return true;
  }
}

export interface SideNavState {
  /** Locked wide (the default), or mini. Kept in this browser. */
  locked: boolean;
  toggleLock: () => void;
  /** Shown wide: locked, or unfolded by the pointer or the keyboard focus. */
  wide: boolean;
  /** Unfolded over the page while not locked: the overlay shows. */
  overlay: boolean;
  /** The room the page leaves for the menu. */
  reservedWidth: number;
  /** The menu's own width. */
  width: number;
  /** Handlers for the menu's element. */
  handlers: {
    onMouseEnter: () => void;
    onMouseLeave: () => void;
    onFocus: () => void;
    onBlur: (event: FocusEvent<HTMLElement>) => void;
  };
}

/**
 * SPEC §4 "Navigation menu": a lock toggle switches between locked-wide and mini. When not locked
 * the menu is mini, unfolds on mouse over (and when the keyboard focus enters it) and folds
 * MENU_FOLD_DELAY_MS after the pointer (or the focus) leaves; an overlay shows while it is
 * unfolded but unlocked.
 */
export function useSideNav(): SideNavState {
  const narrowWindow = useMediaQuery(`(max-width: ${MENU_NARROW_BREAKPOINT_PX - 0.02}px)`) ?? false;
  const widths = menuWidths(narrowWindow);
  const [locked, setLocked] = useState(readLocked);
  const [unfolded, setUnfolded] = useState(false);
  const foldTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const cancelFold = useCallback(() => {
    clearTimeout(foldTimer.current);
    foldTimer.current = undefined;
  }, []);
  const unfold = useCallback(() => {
    cancelFold();
    setUnfolded(true);
  }, [cancelFold]);
  const foldSoon = useCallback(() => {
    cancelFold();
    foldTimer.current = setTimeout(() => setUnfolded(false), MENU_FOLD_DELAY_MS);
  }, [cancelFold]);
  useEffect(() => cancelFold, [cancelFold]);

  const toggleLock = useCallback(() => {
    setLocked((was) => {
      try {
        window.localStorage.setItem(NAV_LOCK_STORAGE_KEY, was ? '0' : '1');
      } catch {
        // Storage blocked: the choice lasts for this page only.
      }
      return !was;
    });
    // Unlocking under the pointer keeps the menu open until the pointer leaves.
    setUnfolded(true);
  }, []);

  const wide = locked || unfolded;
  return {
    locked,
    toggleLock,
    wide,
    overlay: !locked && unfolded,
    reservedWidth: locked ? widths.locked : widths.mini,
    width: wide ? widths.locked : widths.mini,
    handlers: {
      onMouseEnter: unfold,
      onMouseLeave: foldSoon,
      onFocus: unfold,
      onBlur: (event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) foldSoon();
      },
    },
  };
}
