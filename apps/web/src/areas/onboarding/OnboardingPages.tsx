import { ROUTES } from '@moat/contracts/routes';
import { CenteredPage } from '../../components/ui/CenteredPage';
import { KeyedMessagePanel } from '../../components/ui/MessagePanel';

/** Onboarding steps are frames until the onboarding issue fills them. */
const toDashboard = { to: ROUTES.dashboard, labelKey: 'onboarding.goToDashboard' } as const;

export function OnboardingPage() {
  return (
    <KeyedMessagePanel
      titleKey="onboarding.title"
      descriptionKey="onboarding.description"
      link={toDashboard}
    />
  );
}

export function SaasSelectionPage() {
  return (
    <KeyedMessagePanel
      titleKey="onboarding.saasSelection.title"
      descriptionKey="onboarding.saasSelection.description"
      link={toDashboard}
    />
  );
}

export function AllSetPage() {
  return (
    <KeyedMessagePanel
      titleKey="onboarding.allSet.title"
      descriptionKey="onboarding.allSet.description"
      link={toDashboard}
    />
  );
}

/** v1/wizard: the older set-up wizard (chosen when enableUI2Onboarding is off). */
export function WizardPage() {
  return (
    <CenteredPage>
      <KeyedMessagePanel
        titleKey="onboarding.wizard.title"
        descriptionKey="onboarding.wizard.description"
        link={toDashboard}
      />
    </CenteredPage>
  );
}
