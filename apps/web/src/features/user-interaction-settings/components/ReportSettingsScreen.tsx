import { Anchor, Checkbox, Radio, Stack, Switch, Text } from '@mantine/core';
import { ROUTES } from '@moat/contracts/routes';
import {
  BLOCK_SENDER_MODES,
  type BlockSenderMode,
  CONFIRM_SCOPES,
  type ConfirmScope,
  ON_REPORT_ACTIONS,
  type OnReportAction,
  REPORT_TEXT_MAX,
  type ReportSettings,
  type ReportSettingsInput,
} from '@moat/contracts/user-interaction-settings';
import type { FormEvent } from 'react';
import { Link } from 'react-router';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { Section } from '../../../components/ui/Section';
import { SettingsLoading, SettingsSaveBar, useSettingsForm } from '../../../components/ui/SettingsForm';
import { draftWordingProblem, WordingField } from '../../../components/ui/WordingField';
import type { TranslationKey } from '../../../lib/i18n';
import { useTranslation } from '../../../lib/i18n';
import { useReportSettings, useSaveReportSettings } from '../api/report-settings';

const ON_REPORT: Record<OnReportAction, { label: TranslationKey; hint: TranslationKey }> = {
  hold: {
    label: 'interactionSettings.reports.onReport.hold',
    hint: 'interactionSettings.reports.onReport.holdHint',
  },
  keep: {
    label: 'interactionSettings.reports.onReport.keep',
    hint: 'interactionSettings.reports.onReport.keepHint',
  },
};
const SCOPE: Record<ConfirmScope, { label: TranslationKey; hint: TranslationKey }> = {
  all_copies: {
    label: 'interactionSettings.reports.scope.all_copies',
    hint: 'interactionSettings.reports.scope.all_copiesHint',
  },
  reported_copy: {
    label: 'interactionSettings.reports.scope.reported_copy',
    hint: 'interactionSettings.reports.scope.reported_copyHint',
  },
};
const BLOCK: Record<BlockSenderMode, TranslationKey> = {
  ask: 'interactionSettings.reports.block.ask',
  always: 'interactionSettings.reports.block.always',
  never: 'interactionSettings.reports.block.never',
};

function draftOf(s: ReportSettings): ReportSettingsInput {
  const { defaults: _d, admin_alerts: _a, ...input } = s;
  return input;
}
const inputOf = (d: ReportSettingsInput): ReportSettingsInput => ({
  ...d,
  receipt_text: d.receipt_text.trim(),
  confirmed_text: d.confirmed_text.trim(),
  dismissed_text: d.dismissed_text.trim(),
});

/**
 * Settings → User Interaction → Phishing Reports (admins): what the report buttons of a notice do
 * to the message and who is told, the answer a reporter gets on receipt and on the verdict, and
 * what a confirmed report does. Each is enforced where it happens (the notice, the action page,
 * the public restore, the Phishing Reports queue).
 */
export function ReportSettingsScreen() {
  const { t } = useTranslation();
  const settings = useReportSettings();
  const save = useSaveReportSettings();
  const { draft, set, justSaved, savedAs, discard, input, dirty } = useSettingsForm(
    settings.data,
    draftOf,
    inputOf,
  );

  if (settings.isPending || (settings.data && !draft)) {
    return <SettingsLoading label={t('interactionSettings.loading')} />;
  }
  if (settings.isError) return <ApiErrorAlert error={settings.error} />;
  if (!draft || !input) return null;

  const saved = settings.data;
  const blocked = (['receipt_text', 'confirmed_text', 'dismissed_text'] as const).some(
    (k) => draftWordingProblem(draft[k], REPORT_TEXT_MAX) !== null,
  );
  const noButton = !draft.button_phishing && !draft.button_safe;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!dirty || blocked) return;
    save.mutate(input, { onSuccess: savedAs });
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <Text size="sm">{t('interactionSettings.reports.intro')}</Text>

        <Section id="reports-buttons" title={t('interactionSettings.reports.buttonsTitle')}>
          <Checkbox.Group
            label={t('interactionSettings.reports.buttons')}
            description={t('interactionSettings.reports.buttonsHint')}
            value={[...(draft.button_phishing ? ['phishing'] : []), ...(draft.button_safe ? ['safe'] : [])]}
            onChange={(v) => {
              set('button_phishing', v.includes('phishing'));
              set('button_safe', v.includes('safe'));
            }}
          >
            <Stack gap={6} mt={4}>
              <Checkbox value="phishing" label={t('interactionSettings.reports.buttonPhishing')} />
              <Checkbox value="safe" label={t('interactionSettings.reports.buttonSafe')} />
            </Stack>
          </Checkbox.Group>
          {noButton && (
            <Text size="sm" c="dimmed">
              {t('interactionSettings.reports.noButtons')}
            </Text>
          )}
          <Radio.Group
            label={t('interactionSettings.reports.onReportLabel')}
            value={draft.on_report}
            onChange={(v) => set('on_report', v as OnReportAction)}
          >
            <Stack gap="xs" mt={4}>
              {ON_REPORT_ACTIONS.map((a) => (
                <Radio key={a} value={a} label={t(ON_REPORT[a].label)} description={t(ON_REPORT[a].hint)} />
              ))}
            </Stack>
          </Radio.Group>
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              {t('interactionSettings.reports.whoIsTold')}
            </Text>
            <Text size="sm">
              {t(
                saved.admin_alerts
                  ? 'interactionSettings.reports.adminsAlerted'
                  : 'interactionSettings.reports.adminsNotAlerted',
              )}{' '}
              <Anchor
                component={Link}
                to={`${ROUTES.userInteraction}/dashboard`}
                size="sm"
                underline="always"
              >
                {t('interactionSettings.reports.changeAlerts')}
              </Anchor>
            </Text>
            <Text size="sm">{t('interactionSettings.reports.reporterTold')}</Text>
          </Stack>
        </Section>

        <Section id="reports-answer" title={t('interactionSettings.reports.answerTitle')}>
          <WordingField
            multiline
            label={t('interactionSettings.reports.receiptText')}
            description={t('interactionSettings.reports.receiptTextHint', { max: REPORT_TEXT_MAX })}
            placeholder={saved.defaults.receipt_text}
            max={REPORT_TEXT_MAX}
            value={draft.receipt_text}
            onChange={(v) => set('receipt_text', v)}
          />
          <Switch
            label={t('interactionSettings.reports.receiptEmail')}
            description={t('interactionSettings.reports.receiptEmailHint')}
            checked={draft.receipt_email}
            onChange={(event) => set('receipt_email', event.currentTarget.checked)}
          />
          <Switch
            label={t('interactionSettings.reports.verdictEmail')}
            description={t('interactionSettings.reports.verdictEmailHint')}
            checked={draft.verdict_email}
            onChange={(event) => set('verdict_email', event.currentTarget.checked)}
          />
          {draft.verdict_email && (
            <>
              <WordingField
                multiline
                label={t('interactionSettings.reports.confirmedText')}
                description={t('interactionSettings.reports.textHint', { max: REPORT_TEXT_MAX })}
                placeholder={
                  draft.confirm_scope === 'reported_copy'
                    ? saved.defaults.confirmed_text_reported_copy
                    : saved.defaults.confirmed_text
                }
                max={REPORT_TEXT_MAX}
                value={draft.confirmed_text}
                onChange={(v) => set('confirmed_text', v)}
              />
              <WordingField
                multiline
                label={t('interactionSettings.reports.dismissedText')}
                description={t('interactionSettings.reports.textHint', { max: REPORT_TEXT_MAX })}
                placeholder={saved.defaults.dismissed_text}
                max={REPORT_TEXT_MAX}
                value={draft.dismissed_text}
                onChange={(v) => set('dismissed_text', v)}
              />
            </>
          )}
        </Section>

        <Section id="reports-confirmed" title={t('interactionSettings.reports.confirmedTitle')}>
          <Radio.Group
            label={t('interactionSettings.reports.scopeLabel')}
            value={draft.confirm_scope}
            onChange={(v) => set('confirm_scope', v as ConfirmScope)}
          >
            <Stack gap="xs" mt={4}>
              {CONFIRM_SCOPES.map((s) => (
                <Radio key={s} value={s} label={t(SCOPE[s].label)} description={t(SCOPE[s].hint)} />
              ))}
            </Stack>
          </Radio.Group>
          <Radio.Group
            label={t('interactionSettings.reports.blockLabel')}
            description={t('interactionSettings.reports.blockHint')}
            value={draft.block_sender}
            onChange={(v) => set('block_sender', v as BlockSenderMode)}
          >
            <Stack gap="xs" mt={4}>
              {BLOCK_SENDER_MODES.map((m) => (
                <Radio key={m} value={m} label={t(BLOCK[m])} />
              ))}
            </Stack>
          </Radio.Group>
          <Switch
            label={t('interactionSettings.reports.learn')}
            description={t('interactionSettings.reports.learnHint')}
            checked={draft.learn}
            onChange={(event) => set('learn', event.currentTarget.checked)}
          />
        </Section>

        <SettingsSaveBar
          error={save.error}
          savedText={justSaved && t('interactionSettings.saved')}
          dirty={dirty}
          blocked={blocked}
          pending={save.isPending}
          onDiscard={() => discard(saved)}
          saveLabel={t('interactionSettings.save')}
          discardLabel={t('interactionSettings.discard')}
        />
      </Stack>
    </form>
  );
}
