import { ROUTES, SHELL_AREAS } from '@moat/contracts/routes';
import { useParams } from 'react-router';
import { useTranslation } from '../../lib/i18n';
import { type Crumb, NotInEdition, PageFrame } from './PageFrame';

/** v1/{feature}[/{subfeature}[/{id}]]: screens of the classic console, framed under their area. */
export function FeaturePage() {
  const { t } = useTranslation();
  const { feature } = useParams();
  const area = SHELL_AREAS.find((entry) => entry.path === feature);
  const title = t('shell.sections.classicScreen');

  const trail: Crumb[] = [{ label: t('common.home'), to: ROUTES.dashboard }];
  if (area) trail.push({ label: t(`shell.areas.${area.key}`), to: `/${area.path}` });
  trail.push({ label: title });

  return (
    <PageFrame title={title} trail={trail}>
      <NotInEdition subject={title} />
    </PageFrame>
  );
}
