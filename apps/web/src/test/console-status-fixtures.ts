import type { DeploymentConfig } from '@moat/contracts/console';
import { FEATURE_DEFAULTS, type FeatureFlags } from '@moat/contracts/features';
import { jsonResponse } from './render-route';

/** Every flag of GET /api/v1/generic/ui_features, at its default unless overridden. */
export function buildFeatures(overrides: Partial<FeatureFlags> = {}): FeatureFlags {
  return { ...FEATURE_DEFAULTS, ...overrides };
}

/** A paid deployment far from its licence end, as GET /api/v1/deployment answers it. */
export function buildDeployment(overrides: Partial<DeploymentConfig> = {}): DeploymentConfig {
  const inactive = { is_active: false, msp_allowed: false };
  return {
    tenant_name: 'Acme',
    brand: 'moat',
    brandName: 'Moat',
    deploymentMode: 'paid',
    portalLicenseState: null,
    is_msp: false,
    isManagedService: false,
    is_avanan_msp: false,
    is_cp_msp: false,
    mspBrandID: null,
    associationDate: null,
    demoExpirationDate: null,
    paidStartDate: '2025-01-01',
    paidExpirationDate: '2027-01-01',
    paidExpirationInDays: 300,
    paidDurationInDays: 730,
    trialExpirationDays: 30,
    pocExpiresInDays: null,
    trialExpired: false,
    waitingForApproval: false,
    unifiedQuarantineManuallyDisabled: false,
    licence: { isExpired: false, isAboutToExpire: false, licenseExpirationDate: '2027-01-01' },
    training: inactive,
    dmarc: inactive,
    archiving: inactive,
    sspm: inactive,
    support_email: 'support@moat.example',
    default_application_mode: 'mixed',
    ...overrides,
  };
}

/** A poc deployment whose trial ended `daysAgo` days ago. */
export function buildExpiredTrial(overrides: Partial<DeploymentConfig> = {}): DeploymentConfig {
  return buildDeployment({
    deploymentMode: 'poc',
    paidExpirationInDays: null,
    paidExpirationDate: null,
    pocExpiresInDays: -2,
    trialExpired: true,
    licence: { isExpired: false, isAboutToExpire: false, licenseExpirationDate: null },
    ...overrides,
  });
}

/** Handlers for `stubApi` answering the console's flags and deployment. */
export function consoleHandlers(
  features: Partial<FeatureFlags> = {},
  deployment: DeploymentConfig = buildDeployment(),
) {
  return {
    'GET /api/v1/generic/ui_features': () => jsonResponse(200, buildFeatures(features)),
    'GET /api/v1/deployment': () => jsonResponse(200, deployment),
  };
}
