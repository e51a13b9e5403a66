import {
  ActionIcon,
  Badge,
  Divider,
  Indicator,
  NavLink,
  ScrollArea,
  Skeleton,
  Stack,
  Tooltip,
} from '@mantine/core';
import type { Incident, IncidentSeverity } from '@moat/contracts/console';
import { type ReactNode, useEffect, useId, useMemo, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { useTranslation } from '../../../lib/i18n';
import { type NavAction, type NavItem, navLink, navTrail } from '../nav-items';
import { NavIcon, PinIcon } from './NavIcon';
import './side-nav.css';

const SEVERITY_COLOR: Record<IncidentSeverity, string> = { info: 'blue', warning: 'orange', error: 'red' };
const SEVERITY_LABEL = {
  info: 'nav.severity.info',
  warning: 'nav.severity.warning',
  error: 'nav.severity.error',
} as const satisfies Record<IncidentSeverity, string>;
const SEVERITY_RANK: Record<IncidentSeverity, number> = { info: 0, warning: 1, error: 2 };

interface Marker {
  severity: IncidentSeverity;
  titles: string[];
  /** Id of the hidden element that describes the item's incidents to assistive technology. */
  descriptionId: string;
}

/** Incidents by item id; a section also carries its descendants' incidents (it may be folded). */
function markersOf(items: readonly NavItem[], incidents: readonly Incident[], idPrefix: string) {
  const byItem = new Map<string, Incident[]>();
  for (const incident of incidents) {
    if (!incident.nav_item) continue;
    byItem.set(incident.nav_item, [...(byItem.get(incident.nav_item) ?? []), incident]);
  }
  const markers = new Map<string, Marker>();
  const collect = (item: NavItem): Incident[] => {
    const own = [...(byItem.get(item.id) ?? []), ...(item.children ?? []).flatMap(collect)];
    if (own.length > 0) {
      const severity = own.reduce<IncidentSeverity>(
        (worst, incident) =>
          SEVERITY_RANK[incident.severity] > SEVERITY_RANK[worst] ? incident.severity : worst,
        'info',
      );
      markers.set(item.id, {
        severity,
        titles: own.map((incident) => incident.title),
        descriptionId: `${idPrefix}-incident-${item.id}`,
      });
    }
    return own;
  };
  items.forEach(collect);
  return markers;
}

export interface SideNavProps {
  /** The visible items; null while the tenant's data loads. */
  items: NavItem[] | null;
  incidents: readonly Incident[];
  /** Labels shown (locked, unfolded or on a phone) or icons only (mini). */
  wide: boolean;
  /** Logo and label on top. */
  header: ReactNode;
  /** The lock toggle, absent on a phone. */
  lock?: { locked: boolean; onToggle: () => void };
  onNavigate?: () => void;
  onAction: (action: NavAction) => void;
  /** Counts of what waits, shown as a small badge next to an item's label (by item id). */
  badges?: Readonly<Record<string, number>>;
}

/** The side navigation of SPEC §2.4: the rule table's visible items, with incident markers. */
export function SideNav({
  items,
  incidents,
  wide,
  header,
  lock,
  onNavigate,
  onAction,
  badges,
}: SideNavProps) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const idPrefix = useId();
  const trail = useMemo(() => (items ? navTrail(pathname, items) : []), [items, pathname]);
  const activeId = trail.at(-1)?.id;
  const [toggled, setToggled] = useState<Record<string, boolean>>({});
  // A new page opens the sections on its way again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset on every navigation.
  useEffect(() => setToggled({}), [pathname]);

  const markers = useMemo(
    () => (items ? markersOf(items, incidents, idPrefix) : new Map<string, Marker>()),
    [items, incidents, idPrefix],
  );
  const incidentText = (marker: Marker) =>
    `${t(SEVERITY_LABEL[marker.severity])}. ${t('nav.incidents', { list: marker.titles.join('; ') })}`;

  const icon = (item: NavItem) => {
    const marker = markers.get(item.id);
    const glyph = <NavIcon name={item.icon} />;
    if (!marker) return glyph;
    return (
      <Tooltip label={incidentText(marker)} withinPortal multiline maw={280}>
        <Indicator color={SEVERITY_COLOR[marker.severity]} size={9} offset={2} withBorder>
          {glyph}
        </Indicator>
      </Tooltip>
    );
  };

  const label = (item: NavItem) => <span className="side-nav__label">{t(item.title)}</span>;

  const render = (item: NavItem, depth = 0): ReactNode => {
    const marker = markers.get(item.id);
    const common = {
      'data-nav-id': item.id,
      'data-nav-depth': depth,
      label: label(item),
      rightSection: badges?.[item.id] ? (
        <Badge size="sm" circle={badges[item.id]! < 10} color="red.9" className="side-nav__badge">
          <span aria-hidden="true">{badges[item.id]}</span>
          <span className="side-nav__badge-text">{t('alerts.badge', { count: badges[item.id] })}</span>
        </Badge>
      ) : undefined,
      leftSection: icon(item),
      'aria-describedby': marker?.descriptionId,
      className: 'side-nav__item',
    };
    const separator = item.displayLineBreak ? <Divider key={`${item.id}-break`} my={4} /> : null;

    if (item.children) {
      const opened = wide && (toggled[item.id] ?? trail.includes(item));
      return [
        separator,
        <NavLink
          key={item.id}
          {...common}
          component="button"
          type="button"
          opened={opened}
          // Said here, not left to Mantine: its NavLink sets it only from 9.7.4 (pinned to 9.7.3 for @mantine/charts).
          aria-expanded={opened}
          onChange={(next) => setToggled((all) => ({ ...all, [item.id]: next }))}
          childrenOffset="md"
        >
          {item.children.map((child) => render(child, depth + 1))}
        </NavLink>,
      ];
    }
    if (item.action) {
      const action = item.action;
      return [
        separator,
        <NavLink
          key={item.id}
          {...common}
          component="button"
          type="button"
          onClick={() => {
            onAction(action);
            onNavigate?.();
          }}
        />,
      ];
    }
    const to = navLink(item) ?? '';
    const active = item.id === activeId;
    return [
      separator,
      <NavLink
        key={item.id}
        {...common}
        component={Link}
        to={to}
        active={active}
        aria-current={active ? 'page' : undefined}
        onClick={onNavigate}
      />,
    ];
  };

  return (
    <Stack gap={0} h="100%" className="side-nav" data-wide={wide || undefined}>
      <div className="side-nav__header">{header}</div>
      <ScrollArea type="hover" className="side-nav__scroll" scrollbarSize={6}>
        {items ? (
          <div className="side-nav__list">{items.map((item) => render(item))}</div>
        ) : (
          <Stack gap="xs" p="xs" aria-busy="true">
            {[0, 1, 2, 3, 4, 5].map((row) => (
              <Skeleton key={row} height={28} />
            ))}
          </Stack>
        )}
      </ScrollArea>
      {lock && (
        <div className="side-nav__footer">
          <Tooltip label={t('nav.lock')} position="right" withinPortal>
            <ActionIcon
              variant={lock.locked ? 'light' : 'subtle'}
              color="gray"
              size="lg"
              onClick={lock.onToggle}
              aria-label={t('nav.lock')}
              aria-pressed={lock.locked}
            >
              <PinIcon />
            </ActionIcon>
          </Tooltip>
        </div>
      )}
      <div hidden>
        {[...markers.values()].map((marker) => (
          <span key={marker.descriptionId} id={marker.descriptionId}>
            {incidentText(marker)}
          </span>
        ))}
      </div>
    </Stack>
  );
}
