import type { OnboardingChecklist } from '@moat/contracts/onboarding';
import type { TFunction } from '../../lib/i18n';

type Missing = OnboardingChecklist['missing'][number];

/** The wizard's steps, in order. */
export const ONBOARDING_STEPS = ['organisation', 'domains', 'dns', 'hop'] as const;
export type OnboardingStep = (typeof ONBOARDING_STEPS)[number];

/** Which step each missing thing belongs to. */
const STEP_OF: Record<Missing['kind'], OnboardingStep> = {
  domain: 'domains',
  pending_domain: 'domains',
  gateway_name: 'dns',
  record: 'dns',
  mail_server: 'hop',
};

/**
 * Whether a step is done by what is still missing: the DNS step only when every record of every
 * domain is right (a record that could not be checked is not), the domains when none waits.
 */
export function isStepDone(step: OnboardingStep, checklist: OnboardingChecklist): boolean {
  return !checklist.missing.some((item) => STEP_OF[item.kind] === step);
}

const RECORD = { mx: 'MX', spf: 'SPF', dmarc: 'DMARC' } as const;

/** One missing thing in words. */
export function missingText(item: Missing, t: TFunction): string {
  const domain = item.domain ?? '';
  switch (item.kind) {
    case 'domain':
      return t('onboarding.allSet.missing.domain');
    case 'pending_domain':
      return t('onboarding.allSet.missing.pending_domain', { domain });
    case 'gateway_name':
      return t('onboarding.allSet.missing.gateway_name');
    case 'mail_server':
      return t('onboarding.allSet.missing.mail_server');
    case 'record': {
      const record = item.record ? RECORD[item.record] : '';
      if (item.status === 'missing') return t('onboarding.allSet.missing.record_missing', { domain, record });
      if (item.status === 'error') return t('onboarding.allSet.missing.record_error', { domain, record });
      return t('onboarding.allSet.missing.record_warning', { domain, record });
    }
  }
}
