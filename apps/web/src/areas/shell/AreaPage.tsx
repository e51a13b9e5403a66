import { ROUTES, SHELL_AREAS } from '@moat/contracts/routes';
import { useLocation } from 'react-router';
import { NAV_ITEMS, navTrail, PAGE_ONLY_ITEMS } from '../../features/navigation/nav-items';
import { useTranslation } from '../../lib/i18n';
import { type Crumb, NotInEdition, PageFrame } from './PageFrame';
import { ScreenSuspense, screenOf } from './screens';

export type ShellAreaKey = (typeof SHELL_AREAS)[number]['key'];
export type ShellSectionKey = 'archiveSearch';

const FRAMED_ITEMS = [...NAV_ITEMS, ...PAGE_ONLY_ITEMS];

/**
 * The frame of a shell area and of every page under it: the title and breadcrumb come from the
 * navigation entry the path belongs to (its deepest match in the rule table), else from the area.
 * A page shows its screen (screens.tsx); a page without one says plainly that it is not part of this edition.
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
      <AreaContent section={section} title={title} pathname={pathname} />
    </PageFrame>
  );
}

/** The content of an area's page frame: the page's screen where it has one, else what this edition lacks. */
function AreaContent({
  section,
  title,
  pathname,
}: {
  section?: ShellSectionKey;
  title: string;
  pathname: string;
}) {
  const Screen = section ? undefined : screenOf(pathname);
  if (Screen) return <ScreenSuspense Screen={Screen} />;
  return <NotInEdition subject={title} />;
}
