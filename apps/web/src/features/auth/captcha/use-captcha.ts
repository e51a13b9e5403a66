import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { captchaConfigQueryOptions } from '../api/get-captcha-config';
import { type CaptchaSession, createCaptchaSession } from './captcha-session';

/**
 * The invisible captcha of a form (SPEC §2.1): starts solving when the form mounts and answers a
 * fresh token for each submission (`solving` while a submission waits for it). The ALTCHA widget
 * is loaded only then, in its own chunk.
 */
export function useCaptcha(): { takeToken: () => Promise<string | null>; solving: boolean } {
  const queryClient = useQueryClient();
  const session = useRef<CaptchaSession | null>(null);
  const [solving, setSolving] = useState(false);

  useEffect(() => {
    const created = createCaptchaSession({
      loadConfig: () => queryClient.fetchQuery(captchaConfigQueryOptions()),
      loadSolver: (url) => import('./altcha-solver').then((module) => module.createAltchaSolver(url)),
    });
    session.current = created;
    created.prepare();
    return () => {
      created.dispose();
      if (session.current === created) session.current = null;
    };
  }, [queryClient]);

  const takeToken = useCallback(async () => {
    setSolving(true);
    try {
      return (await session.current?.take()) ?? null;
    } finally {
      setSolving(false);
    }
  }, []);
  return { takeToken, solving };
}
