import {
  BANNER_DISMISS_MS,
  BANNER_SLIDE_IN_DELAY_MS,
  WELCOME_BANNER_DELAY_MS,
} from '@moat/contracts/constants';
import { useCallback, useEffect, useState } from 'react';

/**
 * Where a banner is in its life (SPEC §4 "Banners", §9): `waiting` (not there), `entering`
 * (there after WELCOME_BANNER_DELAY_MS, still off-screen), `shown` (slid in
 * BANNER_SLIDE_IN_DELAY_MS later), `leaving` (sliding out for BANNER_DISMISS_MS), `gone`.
 */
export type BannerPhase = 'waiting' | 'entering' | 'shown' | 'leaving' | 'gone';

export function useBannerPhase(active: boolean): { phase: BannerPhase; dismiss: () => void } {
  const [phase, setPhase] = useState<BannerPhase>('waiting');

  useEffect(() => {
    if (!active) return;
    let slide: ReturnType<typeof setTimeout> | undefined;
    const appear = setTimeout(() => {
      setPhase((current) => (current === 'waiting' ? 'entering' : current));
      slide = setTimeout(
        () => setPhase((current) => (current === 'entering' ? 'shown' : current)),
        BANNER_SLIDE_IN_DELAY_MS,
      );
    }, WELCOME_BANNER_DELAY_MS);
    return () => {
      clearTimeout(appear);
      clearTimeout(slide);
    };
  }, [active]);

  useEffect(() => {
    if (phase !== 'leaving') return;
    const timer = setTimeout(() => setPhase('gone'), BANNER_DISMISS_MS);
    return () => clearTimeout(timer);
  }, [phase]);

  const dismiss = useCallback(
    () => setPhase((current) => (current === 'gone' || current === 'waiting' ? 'gone' : 'leaving')),
    [],
  );
  return { phase: active ? phase : 'gone', dismiss };
}
