import { Stack, Text, Title } from '@mantine/core';
import { type ReactNode, useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { TranslationKey } from '../../../lib/i18n';
import type { ActionParams } from '../action-params';
import type { FlowAdapter, Outcome } from '../flow-types';
import { type FlowStep, usePublicFlow } from '../use-public-flow';
import { CodeForm } from './CodeForm';
import { EmailForm } from './EmailForm';
import { flowMessageText } from './flow-message';
import { RequestedStatus } from './RequestedStatus';
import { RequestForm } from './RequestForm';
import { ResultMessage } from './ResultMessage';

/** A panel's heading; result panels take the focus so keyboard and screen-reader users follow. */
export function FlowTitle({ children, focus = false }: { children: ReactNode; focus?: boolean }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (focus) ref.current?.focus();
  }, [focus]);
  return (
    <Title order={1} size="h2" ref={ref} tabIndex={-1} className="flow-title">
      {children}
    </Title>
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
  const { t } = useTranslation();
  const { texts } = adapter;
  const flow = usePublicFlow(adapter, params);
  const { step, actions, pending } = flow;

  let body: ReactNode;
  switch (step.name) {
    case 'progress':
      body = <ResultMessage tone="progress">{t(texts.progress)}</ResultMessage>;
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
    <Stack gap="md">
      <FlowTitle focus={step.name === 'result'}>{t(titleOf(step, adapter))}</FlowTitle>
      {body}
    </Stack>
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
  const { t } = useTranslation();
  const { texts } = adapter;
  switch (outcome.type) {
    case 'restored':
      return <ResultMessage tone="success">{t(texts.success)}</ResultMessage>;
    case 'success':
      return (
        <ResultMessage tone="success">
          <Stack gap="xs">
            <Text>{outcome.primary ?? t(texts.success)}</Text>
            {outcome.secondary && (
              <Text size="sm" c="dimmed">
                {outcome.secondary}
              </Text>
            )}
          </Stack>
        </ResultMessage>
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
      return <ResultMessage tone="info">{t(texts.requested ?? texts.success)}</ResultMessage>;
    case 'declined':
      return <ResultMessage tone="info">{t(texts.declined ?? 'emailActions.unknownError')}</ResultMessage>;
    case 'failed':
      return <ResultMessage tone="error">{flowMessageText(t, outcome.message)}</ResultMessage>;
    default:
      return <ResultMessage tone="error">{t('emailActions.unknownError')}</ResultMessage>;
  }
}
