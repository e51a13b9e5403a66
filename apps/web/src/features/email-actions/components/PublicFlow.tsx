import type { ReactNode } from 'react';
import { useEffect, useRef } from 'react';
import { Message } from '../../../components/public/ui';
import type { TranslationKey } from '../../../lib/i18n';
import { t } from '../../../lib/public-texts';
import type { ActionParams } from '../action-params';
import type { FlowAdapter, Outcome } from '../flow-types';
import { flowMessageText } from '../texts';
import { type FlowStep, usePublicFlow } from '../use-public-flow';
import { CodeForm } from './CodeForm';
import { EmailForm } from './EmailForm';
import { RequestedStatus } from './RequestedStatus';
import { RequestForm } from './RequestForm';

/** A panel's heading; result panels take the focus so keyboard and screen-reader users follow. */
export function FlowTitle({ children, focus = false }: { children: ReactNode; focus?: boolean }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (focus) ref.current?.focus();
  }, [focus]);
  return (
    <h1 ref={ref} tabIndex={-1} className="flow-title">
      {children}
    </h1>
  );
}

function titleOf(step: FlowStep, adapter: FlowAdapter): TranslationKey {
  const { texts } = adapter;
  switch (step.name) {
    case 'email':
    case 'code':
      return 'emailActions.userVerification';
    case 'result':
      return ['restored', 'success', 'requested'].includes(step.outcome.type)
        ? texts.successTitle
        : texts.title;
    default:
      return texts.title;
  }
}

/**
 * The panels of a public page (SPEC §2.1 "Email restore page", §2.2): progress, email
 * verification, verification code with resend, request form with a free-text message, result.
 */
export function PublicFlow({ adapter, params }: { adapter: FlowAdapter; params: ActionParams }) {
  const { texts } = adapter;
  const flow = usePublicFlow(adapter, params);
  const { step, actions, pending } = flow;

  let body: ReactNode;
  switch (step.name) {
    case 'progress':
      body = <Message tone="progress">{t(texts.progress)}</Message>;
      break;
    case 'email':
      body = (
        <EmailForm
          initialEmail={step.email}
          invalidKey={texts.invalidEmail}
          notice={step.notice}
          pending={pending.verify}
          onSubmit={actions.submitEmail}
        />
      );
      break;
    case 'code':
      body = (
        <CodeForm
          key={step.round}
          notice={step.notice}
          attemptsLeft={step.attemptsLeft}
          resendIn={flow.resendIn}
          pending={pending.perform}
          resending={pending.verify}
          onSubmit={(code) => actions.submitCode(step.email, code)}
          onResend={() => actions.resendCode(step.email)}
          onChangeEmail={() => actions.changeEmail(step.email)}
        />
      );
      break;
    case 'request':
      body = (
        <RequestForm
          labelKey={texts.requestLabel ?? texts.title}
          notice={step.notice}
          pending={pending.request}
          onSubmit={(commentary) => actions.submitRequest(step.proof, commentary)}
        />
      );
      break;
    case 'result':
      body = (
        <OutcomeMessage adapter={adapter} params={params} outcome={step.outcome} onSettled={actions.settle} />
      );
      break;
  }

  return (
    <div className="stack">
      <FlowTitle focus={step.name === 'result'}>{t(titleOf(step, adapter))}</FlowTitle>
      {body}
    </div>
  );
}

function OutcomeMessage({
  adapter,
  params,
  outcome,
  onSettled,
}: {
  adapter: FlowAdapter;
  params: ActionParams;
  outcome: Outcome;
  onSettled: (outcome: Outcome) => void;
}) {
  const { texts } = adapter;
  switch (outcome.type) {
    case 'restored':
      return <Message tone="success">{t(texts.success)}</Message>;
    case 'success':
      return (
        <Message tone="success">
          <p>{outcome.primary ?? t(texts.success)}</p>
          {outcome.secondary && <p className="dimmed small">{outcome.secondary}</p>}
        </Message>
      );
    case 'requested':
      if (adapter.pollsStatus) {
        return (
          <RequestedStatus
            params={params}
            requestedKey={texts.requested ?? texts.success}
            notFoundKey="emailActions.restoreEmail.notFound"
            onSettled={onSettled}
          />
        );
      }
      return <Message tone="info">{t(texts.requested ?? texts.success)}</Message>;
    case 'declined':
      return <Message tone="info">{t(texts.declined ?? 'emailActions.unknownError')}</Message>;
    case 'failed':
      return <Message tone="error">{flowMessageText(outcome.message)}</Message>;
    default:
      return <Message tone="error">{t('emailActions.unknownError')}</Message>;
  }
}
