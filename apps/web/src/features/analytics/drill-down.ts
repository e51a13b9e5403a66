import type { MAIL_ACTIONS, MAIL_VERDICTS } from '@moat/contracts/mail-explorer';
import { ROUTES } from '@moat/contracts/routes';
import type { RangeChoice } from '../../components/list/use-list-state';
import type { TranslationKey } from '../../lib/i18n';

export type MailVerdict = (typeof MAIL_VERDICTS)[number];
export type MailAction = (typeof MAIL_ACTIONS)[number];

/** The dashboard's range as the lists take it in their address: a preset, or custom days. */
export interface DrillRange {
  range: RangeChoice;
  fromDay: string;
  toDay: string;
}

function rangeParams({ range, fromDay, toDay }: DrillRange): Record<string, string> {
  if (range === 'custom')
    return { range, ...(fromDay ? { from: fromDay } : {}), ...(toDay ? { to: toDay } : {}) };
  return range ? { range } : {};
}

const withQuery = (path: string, params: Record<string, string>) => `${path}?${new URLSearchParams(params)}`;

/** Mail Explorer filtered to the range and a verdict, an action or a search (an address, a domain). */
export function mailExplorerHref(
  range: DrillRange,
  filter: { verdict?: MailVerdict; action?: MailAction; q?: string } = {},
): string {
  const { verdict, action, q } = filter;
  return withQuery(ROUTES.mailExplorer, {
    ...(q ? { q } : {}),
    ...rangeParams(range),
    ...(verdict ? { verdict } : {}),
    ...(action ? { action } : {}),
  });
}

/** Security Events filtered to the range and one detecting engine. */
export function securityEventsHref(range: DrillRange, engine: string): string {
  return withQuery(ROUTES.securityEvents, { engine, ...rangeParams(range) });
}

/** The words (Mail Explorer's) and chart colours (Mantine palette: both themes) of each verdict and action. */
export const VERDICT_SERIES: Record<MailVerdict, { label: TranslationKey; color: string }> = {
  clean: { label: 'mailExplorer.verdict.clean', color: 'green.6' },
  phishing: { label: 'mailExplorer.verdict.phishing', color: 'red.6' },
  malware: { label: 'mailExplorer.verdict.malware', color: 'grape.6' },
  spam: { label: 'mailExplorer.verdict.spam', color: 'gray.6' },
  suspicious: { label: 'mailExplorer.verdict.suspicious', color: 'orange.6' },
};

export const ACTION_SERIES: Record<MailAction, { label: TranslationKey; color: string }> = {
  delivered: { label: 'mailExplorer.action.delivered', color: 'teal.6' },
  delivered_banner: { label: 'mailExplorer.action.delivered_banner', color: 'yellow.6' },
  attachments_removed: { label: 'mailExplorer.action.attachments_removed', color: 'cyan.6' },
  quarantined: { label: 'mailExplorer.action.quarantined', color: 'red.6' },
  quarantined_silent: { label: 'mailExplorer.action.quarantined_silent', color: 'pink.6' },
  failed: { label: 'mailExplorer.action.failed', color: 'gray.6' },
};
