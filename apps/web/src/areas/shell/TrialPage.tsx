import { ROUTES } from '@moat/contracts/routes';
import { useTranslation } from 'react-i18next';
import { NoDataYet, PageFrame } from './PageFrame';

/** trial: the trial-expired page; its content (poc deployments) comes with the licence issue. */
export function TrialPage() {
  const { t } = useTranslation();
  const title = t('shell.sections.trial');
  return (
    <PageFrame title={title} trail={[{ label: t('common.home'), to: ROUTES.dashboard }, { label: title }]}>
      <NoDataYet subject={title} />
    </PageFrame>
  );
}
