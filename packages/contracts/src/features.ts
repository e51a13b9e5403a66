import { z } from 'zod/mini';

/**
 * Every tenant feature flag (SPEC §3 "UI features" and the navigation flags of SPEC §2.4)
 * with its default. A tenant's stored flags override these defaults.
 */
export const FEATURE_DEFAULTS = {
  // Theme and brand
  checkpointTheme: false,
  sonicwallTheme: false,
  isAvananMsp: false,
  // Sign-in
  enableMFA: true,
  samlAuth: false,
  /** Sign-in with Microsoft or Google is set up for some tenant (issue 15): the buttons show. */
  office365Auth: false,
  googleAuth: false,
  blockMaintenanceLogin: false,
  clearSessionOnAppStart: false,
  // Shell and behaviour
  isPrivateFeatures: false,
  enableUI2Onboarding: true,
  enableTrialExpiredPage: true,
  enableLicenseExpirationLabel: true,
  enableMSUnifiedQuarantine: false,
  enableMSRestorePolicy: false,
  hideSearchInputFF: false,
  enableLearningMode: false,
  enableSmartArchiveTestFF: false,
  troubleshooting: false,
  enableAmplitudeAnalytics: false,
  enableNewWebAPI: false,
  enableUINoRDS: false,
  // Navigation (SPEC §2.4)
  enableUserInteractionScreen: true,
  enableTEX: true,
  enableUserReportedPhishing: true,
  enableSmartBanners: false,
  enableVendorRisk: false,
  showCheckupReportsScreen: false,
  enableSupplyChainThreats: false,
  enableReportSchedulingScreen: false,
  enablePhishingTraining: false,
  HideDMARCForFedRAMP: false,
  /** This edition has the whole DMARC area (issue 37): on unless a tenant turns it off. */
  enableDMARC: true,
  enableSPFManagement: true,
  enableDKIMManagement: true,
  enableAtmosecIntegration: false,
  mspSSPMBypass: false,
  cloudAppsTab: true,
  appStoreTab: true,
  enableGoogleDlpScanTemplate: true,
  enableTrustedSenders: true,
  userManagementTab: true,
  enableCustomLogo: true,
  enableChangeApplicationMode: true,
  enableSystemTask: false,
  serviceStatus: true,
  showVersionInfoLinkCP: false,
  enableAddOnsStore: false,
} as const satisfies Record<string, boolean>;

export type FeatureName = keyof typeof FEATURE_DEFAULTS;
export type FeatureFlags = Record<FeatureName, boolean>;

export const FEATURE_NAMES = Object.keys(FEATURE_DEFAULTS) as FeatureName[];

export function isFeatureName(name: string): name is FeatureName {
  return Object.hasOwn(FEATURE_DEFAULTS, name);
}

/**
 * The only flags an anonymous caller may read (GET /api/v1/generic/ui_features_public):
 * what the sign-in area and the public pages need before anyone is signed in.
 */
export const PUBLIC_FEATURE_NAMES = [
  'checkpointTheme',
  'sonicwallTheme',
  'samlAuth',
  'office365Auth',
  'googleAuth',
  'clearSessionOnAppStart',
  'troubleshooting',
] as const satisfies readonly FeatureName[];

export type PublicFeatureName = (typeof PUBLIC_FEATURE_NAMES)[number];

export const publicFeaturesSchema = z
  .object(
    Object.fromEntries(PUBLIC_FEATURE_NAMES.map((name) => [name, z.boolean()])) as Record<
      PublicFeatureName,
      z.ZodMiniBoolean
    >,
  )
  .register(z.globalRegistry, { id: 'PublicFeatures' });
export type PublicFeatures = z.infer<typeof publicFeaturesSchema>;

/** Resolve a tenant's stored flags over the defaults. Unknown stored names are ignored. */
export function resolveFeatures(stored: Iterable<{ name: string; enabled: boolean }>): FeatureFlags {
  const flags: FeatureFlags = { ...FEATURE_DEFAULTS };
  for (const { name, enabled } of stored) {
    if (isFeatureName(name)) flags[name] = enabled;
  }
  return flags;
}

export function pickPublicFeatures(flags: FeatureFlags): PublicFeatures {
  return Object.fromEntries(PUBLIC_FEATURE_NAMES.map((name) => [name, flags[name]])) as PublicFeatures;
}

/** GET /api/v1/generic/ui_features: every flag of the signed-in user's tenant. */
export const featureFlagsSchema = z
  .object(
    Object.fromEntries(FEATURE_NAMES.map((name) => [name, z.boolean()])) as Record<
      FeatureName,
      z.ZodMiniBoolean
    >,
  )
  .register(z.globalRegistry, { id: 'FeatureFlags' });
