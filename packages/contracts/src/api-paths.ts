/** Server paths the web calls (SPEC §7 and DESIGN §4). */
export const API = {
  health: '/healthz',
  ready: '/readyz',
  docs: '/api/docs',
  /** The user guide (docs/user-guide.md as a page): Help → Documentation. */
  userGuide: '/help',
  docsJson: '/api/docs/json',
  uiFeaturesPublic: '/api/v1/generic/ui_features_public',
  recaptchaConfig: '/api/v1/generic/recaptcha_config',
  customIconPublic: '/api/v1/custom_icon_public',
  customIcon: '/api/v1/custom_icon',
  currentUser: '/api/v1/current_user',
  version: '/api/v1/version',
} as const;

/** The `:name` parameters of a route pattern such as `/api/v1/:type/restore/:msg/status`. */
export type PathParams<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | PathParams<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

/**
 * The concrete path of a route pattern: each `:name` becomes its value, URL-encoded. The API
 * registers the pattern and the web calls what this makes of it, so both come from one string.
 */
export function fillPath<P extends string>(pattern: P, params: Record<PathParams<P>, string>): string {
  const values = params as Record<string, string>;
  return pattern.replace(/:([A-Za-z_]+)/g, (_match, name: string) => {
    const value = values[name];
    if (value === undefined) throw new TypeError(`fillPath: no value for :${name} in ${pattern}`);
    return encodeURIComponent(value);
  });
}
