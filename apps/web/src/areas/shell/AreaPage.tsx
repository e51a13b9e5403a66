import { ROUTES, SHELL_AREAS } from '@moat/contracts/routes';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { MailExplorerScreen } from '../../features/mail-explorer/components/MailExplorerScreen';
import { NAV_ITEMS, navTrail, PAGE_ONLY_ITEMS } from '../../features/navigation/nav-items';
import { OverviewDashboard } from '../../features/overview/components/OverviewDashboard';
import { type Crumb, NoDataYet, PageFrame } from './PageFrame';

export type ShellAreaKey = (typeof SHELL_AREAS)[number]['key'];
export type ShellSectionKey = 'archiveSearch';

const FRAMED_ITEMS = [...NAV_ITEMS, ...PAGE_ONLY_ITEMS];

/**
 * The frame of a shell area and of every page under it: the title and breadcrumb come from the
 * navigation entry the path belongs to (its deepest match in the rule table), else from the area.
 * The overview (/dashboard) shows its counts and /mail-explorer the processed mail; other pages say
 * they have no data yet.
 */
export function AreaPage({ area, section }: { area: ShellAreaKey; section?: ShellSectionKey }) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const areaTitle = t(`shell.areas.${area}`);
  const areaPath = `/${SHELL_AREAS.find((entry) => entry.key === area)?.path ?? ''}`;
  const home: Crumb[] = area === 'dashboard' ? [] : [{ label: t('common.home'), to: ROUTES.dashboard }];

  let title: string;
  let trail: Crumb[];
  const entries = section ? [] : navTrail(pathname, FRAMED_ITEMS);
  if (section) {
    title = t(`shell.sections.${section}`);
    trail = [...home, { label: areaTitle, to: areaPath }, { label: title }];
  } else if (entries.length > 0) {
    const current = entries[entries.length - 1]!;
    title = t(current.title);
    trail = [
      ...home,
      ...entries.slice(0, -1).map((entry) => ({ label: t(entry.title), to: entry.href })),
      { label: title },
    ];
  } else {
    title = areaTitle;
    trail = [...home, { label: areaTitle }];
  }

  return (
    <PageFrame title={title} trail={trail}>
      <AreaContent area={area} section={section} title={title} />
    </PageFrame>
  );
}

/** The content of an area's page frame: the area's screen where it has one, else a placeholder. */
function AreaContent({
  area,
  section,
  title,
}: {
  area: ShellAreaKey;
  section?: ShellSectionKey;
  title: string;
}) {
  if (!section && area === 'dashboard') return <OverviewDashboard />;
  if (!section && area === 'mailExplorer') return <MailExplorerScreen />;
  return <NoDataYet subject={title} />;
}
