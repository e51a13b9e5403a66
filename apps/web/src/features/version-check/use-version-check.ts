import { VERSION_CHECK_FIRST_DELAY_MS, VERSION_CHECK_INTERVAL_MS } from '@moat/contracts/constants';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { versionQueryOptions } from '../../lib/console-data/get-version';
import { BUILD_ID, isNewVersion } from './build-id';

/**
 * SPEC §4 "Version check": asks the server which web build it serves VERSION_CHECK_FIRST_DELAY_MS
 * after mounting, then every VERSION_CHECK_INTERVAL_MS, and stops once a new version is found.
 * A failed check is tried again at the next tick.
 */
export function useVersionCheck(runningBuildId: string = BUILD_ID): boolean {
  const queryClient = useQueryClient();
  const [newVersion, setNewVersion] = useState(false);

  useEffect(() => {
    if (newVersion) return;
    let cancelled = false;
    let interval: ReturnType<typeof setInterval> | undefined;
    const check = async () => {
      try {
        const answer = await queryClient.fetchQuery({ ...versionQueryOptions(), staleTime: 0 });
        if (!cancelled && isNewVersion(answer.version_info.ui2_version, runningBuildId)) setNewVersion(true);
      } catch {
        // Offline or the server is restarting: the next tick asks again.
      }
    };
    const first = setTimeout(() => {
      void check();
      interval = setInterval(() => void check(), VERSION_CHECK_INTERVAL_MS);
    }, VERSION_CHECK_FIRST_DELAY_MS);
    return () => {
      cancelled = true;
      clearTimeout(first);
      clearInterval(interval);
    };
  }, [queryClient, runningBuildId, newVersion]);

  return newVersion;
}
