/** Defined by vite.config.ts for every build (a new value each time); absent in dev and tests. */
declare const __MOAT_BUILD_ID__: string | undefined;

/** Build ids that say nothing about which bundle is served. */
const UNKNOWN_BUILD_IDS: ReadonlySet<string> = new Set(['dev', 'unknown', '']);

/**
 * The id of the running web bundle; the build also writes it to `version.json`, which the server
 * answers as `version_info.ui2_version`. 'dev' outside a production build.
 */
export const BUILD_ID: string = typeof __MOAT_BUILD_ID__ === 'string' ? __MOAT_BUILD_ID__ : 'dev';

/**
 * SPEC §4 "Version check": a new version is out when the server serves another build than the
 * one running. Unknown ids on either side ('dev', 'unknown') never count as new.
 */
export function isNewVersion(served: string, running: string): boolean {
  return !UNKNOWN_BUILD_IDS.has(served) && !UNKNOWN_BUILD_IDS.has(running) && served !== running;
}
