import type { LinkCheckResponse } from '@moat/contracts/click-time';
import { useEffect, useState } from 'react';
import { Button, Message } from '../../components/public/ui';
import { isApiError } from '../../lib/http';
import { t } from '../../lib/public-texts';
import { FlowTitle } from '../email-actions/components/PublicFlow';
import { usePublicDocumentTitle } from '../public-settings/components/PublicLayout';
import { checkLink, continueToLink } from './link-api';

type State =
  | { name: 'loading' }
  | { name: 'invalid' }
  | { name: 'failed' }
  | { name: 'shown'; link: LinkCheckResponse };

/**
 * The warning and block page of a rewritten link (click-time protection, issue 36): the real
 * host written out, why Moat stopped the click, and for a suspicious link a deliberate way on
 * when the organisation allows it. The link itself is never clickable here.
 */
export function LinkPage({ search }: { search: URLSearchParams }) {
  const token = search.get('t') ?? '';
  const url = search.get('u') ?? '';
  const [state, setState] = useState<State>(token && url ? { name: 'loading' } : { name: 'invalid' });
  const [going, setGoing] = useState(false);
  const [refused, setRefused] = useState(false);

  useEffect(() => {
    if (!token || !url) return;
    const controller = new AbortController();
    checkLink(token, url, controller.signal).then(
      (link) => {
        // Judged clean by now (an exception added since, say): on to the site at once.
        if (link.verdict === 'clean') window.location.replace(link.url);
        else setState({ name: 'shown', link });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setState(isApiError(error) && error.status === 400 ? { name: 'invalid' } : { name: 'failed' });
      },
    );
    return () => controller.abort();
  }, [token, url]);

  const title =
    state.name === 'invalid'
      ? t('emailActions.link.invalidTitle')
      : state.name === 'shown' && state.link.verdict === 'malicious'
        ? t('emailActions.link.blockedTitle')
        : t('emailActions.link.warningTitle');
  usePublicDocumentTitle(title);

  const proceed = async (link: LinkCheckResponse) => {
    setGoing(true);
    try {
      const { url: next } = await continueToLink(token, link.url);
      window.location.assign(next);
    } catch {
      setGoing(false);
      setRefused(true);
    }
  };

  if (state.name === 'loading') return <Message tone="progress">{t('emailActions.link.checking')}</Message>;
  if (state.name === 'failed') return <Message tone="error">{t('emailActions.connectionError')}</Message>;
  if (state.name === 'invalid')
    return (
      <div className="stack">
        <FlowTitle focus>{title}</FlowTitle>
        <Message tone="error">{t('emailActions.link.invalid')}</Message>
      </div>
    );

  const { link } = state;
  const blocked = link.verdict === 'malicious';
  return (
    <div className="stack link-page" data-verdict={link.verdict}>
      <FlowTitle focus>{title}</FlowTitle>
      <Message tone="error">
        {blocked ? t('emailActions.link.blockedLead') : t('emailActions.link.warningLead')}
      </Message>
      <div className="stack link-page__site">
        <p className="dimmed">{t('emailActions.link.site')}</p>
        <p className="link-page__host">{link.host}</p>
        {link.readableHost !== link.host && (
          <p className="small">{t('emailActions.link.readable', { host: link.readableHost })}</p>
        )}
        <p className="link-page__url small">{link.url}</p>
      </div>
      <div className="stack">
        <p className="dimmed">{t('emailActions.link.why')}</p>
        <ul className="link-page__reasons">
          {(link.reasons.length > 0 ? link.reasons : [t('emailActions.link.noReason')]).map((reason) => (
            <li key={reason}>{reason}</li>
          ))}
        </ul>
      </div>
      {blocked ? (
        <p>{t('emailActions.link.close')}</p>
      ) : link.canContinue && !refused ? (
        <div className="stack">
          <p className="small">{t('emailActions.link.continueHint')}</p>
          <div className="row">
            <Button variant="link" loading={going} onClick={() => void proceed(link)}>
              {t('emailActions.link.continue')}
            </Button>
          </div>
        </div>
      ) : (
        <p>{refused ? t('emailActions.link.refused') : t('emailActions.link.noContinue')}</p>
      )}
    </div>
  );
}
