import { useCallback, useEffect, useState } from 'react';

/** Seconds left until a moment (e.g. a resend's wait_time), ticking once a second; 0 when over. */
export function useCountdown(): { remaining: number; start: (seconds: number) => void } {
  const [until, setUntil] = useState<number | null>(null);
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    if (until === null) return;
    const timer = window.setInterval(() => {
      const current = Date.now();
      setNow(current);
      if (current >= until) {
        setUntil(null);
      }
    }, 1_000);
    return () => window.clearInterval(timer);
  }, [until]);

  const start = useCallback((seconds: number) => {
    const current = Date.now();
    setNow(current);
    setUntil(seconds > 0 ? current + seconds * 1_000 : null);
  }, []);

  return { remaining: until === null ? 0 : Math.max(0, Math.ceil((until - now) / 1_000)), start };
}
