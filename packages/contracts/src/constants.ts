/** Business constants and limits (SPEC §9). Both apps read them from here. */
export const MAIL_VERIFICATION_MAX_ATTEMPTS = 3;
export const ONE_TIME_CODE_LENGTH = 6;
export const PASSWORD_MIN_LENGTH = 8;

export const CURRENT_USER_RETRY_DELAY_MS = 1_000;
export const CURRENT_USER_POLL_INTERVAL_MS = 225_000;
export const PASSWORD_EXPIRY_POLL_INTERVAL_MS = 15_000;

export const RESTORE_POLL_INTERVAL_MS = 2_000;
export const RESTORE_MAX_RETRIES = 4;
export const CODE_FORM_REDISPLAY_DELAY_MS = 1_000;
export const DEFAULT_RESEND_WAIT_SECONDS = 0;

export const FONT_WAIT_AFTER_READY_MS = 900;
export const FONT_WAIT_HARD_LIMIT_MS = 4_000;
export const FEATURE_LOOKUP_FALLBACK_LOGIN_MS = 8_000;

export const QUICK_SEARCH_DEBOUNCE_MS = 1_000;
export const QUICK_SEARCH_FOCUS_OUT_DEBOUNCE_MS = 300;
export const QUICK_SEARCH_PANEL_DELAY_MS = 500;
export const QUICK_SEARCH_CATEGORY_LIMIT = 8;
export const QUICK_SEARCH_DATE_RANGES = ['day', 'week', 'month', 'year'] as const;
export const QUICK_SEARCH_DEFAULT_DATE_RANGE = 'month';

export const VERSION_CHECK_INTERVAL_MS = 5 * 60_000;
export const VERSION_CHECK_FIRST_DELAY_MS = 5_000;
export const USER_ACTIVE_MESSAGE_INTERVAL_MS = 60_000;

export const MENU_WIDTH_LOCKED_PX = 250;
export const MENU_WIDTH_MINI_PX = 70;
export const MENU_WIDTH_LOCKED_NARROW_PX = 220;
export const MENU_WIDTH_MINI_NARROW_PX = 64;
export const MENU_NARROW_BREAKPOINT_PX = 1530;
export const MENU_FOLD_DELAY_MS = 100;

export const PAGE_LOADER_FADE_MS = 300;
export const FLOATING_MENU_HEIGHT_PX = 690;
export const FLOATING_MENU_CLOSE_MS = 550;
export const FLOATING_MENU_OPEN_DELAY_MS = 10;

export const WELCOME_BANNER_DELAY_MS = 4_000;
export const BANNER_SLIDE_IN_DELAY_MS = 2_000;
export const BANNER_DISMISS_MS = 1_000;
export const BANNERS_MIN_WIDTH_PX = 1_400;
export const TRIAL_REQUEST_FAILURE_TIMEOUT_MS = 1_500;

export const DIALOG_WIDTH = {
  small: 550,
  loginReason: 600,
  mfaSetup: 616,
  version: 620,
  medium: 660,
  mailVerification: 700,
  trialExpired: 700,
} as const;
export const VERSION_DIALOG_HEIGHT_PX = 250;

export const LICENCE_WARNING_WINDOW_DAYS = 30;

/** Themes offered: a mixed (light) theme and a dark theme. */
export const THEMES = ['mixed', 'dark'] as const;
export type ThemeMode = (typeof THEMES)[number];

/** Header names of SPEC §3: numeric auth token and numeric session id on every response. */
export const SESSION_ID_HEADER = 'x-moat-session-id';
export const AUTH_TOKEN_HEADER = 'x-moat-auth-token';

/**
 * The portal sign-ins of SPEC §3 "Auth tokens": a parent portal (an MSP's, the checkpoint brand's,
 * a firewall vendor's) opens Moat with a one-time token for its own brand.
 */
export const PORTAL_BRANDS = ['msp', 'checkpoint', 'firewall'] as const;
export type PortalBrand = (typeof PORTAL_BRANDS)[number];
/** The URL parameter of each brand's token at start-up (SPEC §4 "Start-up", §7). */
export const PORTAL_TOKEN_PARAM = {
  msp: 'accessToken',
  checkpoint: 'firstTimeToken',
  firewall: 'authtoken',
} as const satisfies Record<PortalBrand, string>;
/** The firewall vendor's token comes with the firewall's serial number in this parameter. */
export const PORTAL_SERIAL_PARAM = 'domain';
/** …or both packed as `authtoken=…&domain=…` in base64, in this one. */
export const PORTAL_PACKED_PARAM = 'spogSrc';
/** Every URL parameter of a start-up sign-in: the browser goes on without them. */
export const STARTUP_TOKEN_PARAMS = [
  ...Object.values(PORTAL_TOKEN_PARAM),
  PORTAL_SERIAL_PARAM,
  PORTAL_PACKED_PARAM,
] as const;
/** The longest token a portal sends: a parent portal's signed token carries the user's email. */
export const PORTAL_TOKEN_MAX_LENGTH = 1_000;
