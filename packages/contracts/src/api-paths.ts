/** Server paths the web calls (SPEC §7 and DESIGN §4). */
export const API = {
  health: '/healthz',
  ready: '/readyz',
  docs: '/api/docs',
  docsJson: '/api/docs/json',
  uiFeaturesPublic: '/api/v1/generic/ui_features_public',
  recaptchaConfig: '/api/v1/generic/recaptcha_config',
  customIconPublic: '/api/v1/custom_icon_public',
  customIcon: '/api/v1/custom_icon',
  currentUser: '/api/v1/current_user',
  version: '/api/v1/version',
} as const;
