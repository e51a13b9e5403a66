import { ROUTES, SHELL_AREAS } from '@moat/contracts/routes';
import { useTranslation } from 'react-i18next';
import { type Crumb, NoDataYet, PageFrame } from './PageFrame';

export type ShellAreaKey = (typeof SHELL_AREAS)[number]['key'];
export type ShellSectionKey = 'archiveSearch';

/** The frame of a shell area (and of its sub-routes): breadcrumb, title and an empty state. */
export function AreaPage({ area, section }: { area: ShellAreaKey; section?: ShellSectionKey }) {
  const { t } = useTranslation();
  const areaTitle = t(`shell.areas.${area}`);
  const areaPath = `/${SHELL_AREAS.find((entry) => entry.key === area)?.path ?? ''}`;
  const title = section ? t(`shell.sections.${section}`) : areaTitle;

  const trail: Crumb[] = [];
  if (area !== 'dashboard') trail.push({ label: t('common.home'), to: ROUTES.dashboard });
  trail.push(section ? { label: areaTitle, to: areaPath } : { label: areaTitle });
  if (section) trail.push({ label: title });

  return (
    <PageFrame title={title} trail={trail}>
      <NoDataYet subject={title} />
    </PageFrame>
  );
}
