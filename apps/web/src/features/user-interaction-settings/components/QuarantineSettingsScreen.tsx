import {
  Anchor,
  Checkbox,
  Group,
  NativeSelect,
  NumberInput,
  Paper,
  Radio,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Title,
} from '@mantine/core';
import { DIGEST_SCHEDULES } from '@moat/contracts/deployment';
import { RESTORE_MODES } from '@moat/contracts/quarantine';
import { ROUTES } from '@moat/contracts/routes';
import {
  DIGEST_DAYS_MAX,
  DIGEST_SUBJECT_PLACEHOLDERS,
  NOTICE_INTRO_MAX,
  NOTICE_SUBJECT_MAX,
  NOTICE_SUBJECT_PLACEHOLDERS,
  NOTIFICATION_FREQUENCIES,
  type NotificationFrequency,
  type QuarantineSettings,
  type QuarantineSettingsInput,
  RESTORABLE_VERDICTS,
  type RestorableVerdict,
} from '@moat/contracts/user-interaction-settings';
import { type FormEvent, useId } from 'react';
import { Link } from 'react-router';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { Section } from '../../../components/ui/Section';
import { SettingsLoading, SettingsSaveBar, useSettingsForm } from '../../../components/ui/SettingsForm';
import { draftWordingProblem, WordingField } from '../../../components/ui/WordingField';
import type { TranslationKey } from '../../../lib/i18n';
import { useTranslation } from '../../../lib/i18n';
import { DIGEST_LABEL, RESTORE_LABEL, VERDICT_LABEL } from '../../policy/labels';
import { useQuarantineSettings, useSaveQuarantineSettings } from '../api/quarantine-settings';

const FREQUENCY_LABEL: Record<NotificationFrequency, TranslationKey> = {
  per_message: 'interactionSettings.quarantine.frequency.per_message',
  digest_only: 'interactionSettings.quarantine.frequency.digest_only',
  off: 'interactionSettings.quarantine.frequency.off',
};
const FREQUENCY_HINT: Record<NotificationFrequency, TranslationKey> = {
  per_message: 'interactionSettings.quarantine.frequency.per_messageHint',
  digest_only: 'interactionSettings.quarantine.frequency.digest_onlyHint',
  off: 'interactionSettings.quarantine.frequency.offHint',
};
const RESTORE_HINT: Record<(typeof RESTORE_MODES)[number], TranslationKey> = {
  automatic: 'interactionSettings.quarantine.modeHint.automatic',
  request: 'interactionSettings.quarantine.modeHint.request',
  admin_approve: 'interactionSettings.quarantine.modeHint.admin_approve',
  phish_request_restore: 'interactionSettings.quarantine.modeHint.phish_request_restore',
  none: 'interactionSettings.quarantine.modeHint.none',
};

function draftOf(s: QuarantineSettings): QuarantineSettingsInput {
  const { approver_candidates: _c, defaults: _d, ...input } = s;
  return { ...input, verdicts: { ...input.verdicts } };
}

/** The draft as the API takes it: texts trimmed. */
function inputOf(d: QuarantineSettingsInput): QuarantineSettingsInput {
  return {
    ...d,
    approver_ids: d.approvers === 'named' ? d.approver_ids : [],
    notice_subject: d.notice_subject.trim(),
    notice_intro: d.notice_intro.trim(),
    digest_subject: d.digest_subject.trim(),
    digest_intro: d.digest_intro.trim(),
  };
}

/** What the API would refuse of the draft, by field (the same rules, said before saving). */
function problemsOf(d: QuarantineSettingsInput): Partial<Record<string, TranslationKey>> {
  const problems: Partial<Record<string, TranslationKey>> = {};
  if (d.approvers === 'named' && d.approver_ids.length === 0)
    problems.approver_ids = 'interactionSettings.quarantine.problems.approvers_empty';
  if (d.notification_frequency === 'digest_only' && d.digest_schedule === 'off')
    problems.digest_schedule = 'interactionSettings.quarantine.problems.digest_needed';
  if (d.digest_schedule !== 'off' && d.digest_verdicts.length === 0)
    problems.digest_verdicts = 'interactionSettings.quarantine.problems.digest_verdicts_empty';
  return problems;
}
const wordingBad = (d: QuarantineSettingsInput) =>
  draftWordingProblem(d.notice_subject, NOTICE_SUBJECT_MAX, NOTICE_SUBJECT_PLACEHOLDERS) !== null ||
  draftWordingProblem(d.notice_intro, NOTICE_INTRO_MAX) !== null ||
  draftWordingProblem(d.digest_subject, NOTICE_SUBJECT_MAX, DIGEST_SUBJECT_PLACEHOLDERS) !== null ||
  draftWordingProblem(d.digest_intro, NOTICE_INTRO_MAX) !== null;

function VerdictRestore({
  verdict,
  value,
  onChange,
}: {
  verdict: RestorableVerdict;
  value: QuarantineSettingsInput['verdicts'][RestorableVerdict];
  onChange: (next: QuarantineSettingsInput['verdicts'][RestorableVerdict]) => void;
}) {
  const { t } = useTranslation();
  const headingId = useId();
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-labelledby={headingId}>
      <Stack gap="xs">
        <Title order={3} size="h5" id={headingId}>
          {t(VERDICT_LABEL[verdict])}
        </Title>
        <NativeSelect
          label={t('interactionSettings.quarantine.restoreMode')}
          description={t(RESTORE_HINT[value.restore_mode])}
          value={value.restore_mode}
          onChange={(event) =>
            onChange({ ...value, restore_mode: event.currentTarget.value as typeof value.restore_mode })
          }
          data={RESTORE_MODES.map((m) => ({ value: m, label: t(RESTORE_LABEL[m]) }))}
        />
        <Switch
          label={t('interactionSettings.quarantine.identification')}
          checked={value.identification_required}
          disabled={value.restore_mode === 'none'}
          onChange={(event) => onChange({ ...value, identification_required: event.currentTarget.checked })}
        />
      </Stack>
    </Paper>
  );
}

/**
 * Settings → User Interaction → Quarantine (admins): who decides restore requests, what
 * recipients may do with a held message of each verdict, how and how often they are told and in
 * whose words, and what the digest lists. The one place these are changed: the Policy screen and
 * Settings show them and link here.
 */
export function QuarantineSettingsScreen() {
  const { t } = useTranslation();
  const settings = useQuarantineSettings();
  const save = useSaveQuarantineSettings();
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
  const problems = problemsOf(draft);
  const blocked = Object.keys(problems).length > 0 || wordingBad(draft);
  const digestOn = draft.digest_schedule !== 'off';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!dirty || blocked) return;
    save.mutate(input, { onSuccess: savedAs });
  };
  const setFrequency = (frequency: NotificationFrequency) => {
    set('notification_frequency', frequency);
    // Off tells nobody, digest included; digest only needs a schedule.
    if (frequency === 'off') set('digest_schedule', 'off');
    if (frequency === 'digest_only' && draft.digest_schedule === 'off') set('digest_schedule', 'daily');
  };
  const schedules = DIGEST_SCHEDULES.filter(
    (s) => draft.notification_frequency !== 'digest_only' || s !== 'off',
  );
  const problem = (field: string) => (problems[field] ? t(problems[field]!) : undefined);

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <Text size="sm">{t('interactionSettings.quarantine.intro')}</Text>

        <Section id="quarantine-approvers" title={t('interactionSettings.quarantine.approversTitle')}>
          <Radio.Group
            label={t('interactionSettings.quarantine.approvers')}
            value={draft.approvers}
            onChange={(v) => set('approvers', v as QuarantineSettingsInput['approvers'])}
          >
            <Stack gap="xs" mt={4}>
              <Radio value="admins" label={t('interactionSettings.quarantine.approversAdmins')} />
              <Radio value="named" label={t('interactionSettings.quarantine.approversNamed')} />
            </Stack>
          </Radio.Group>
          {draft.approvers === 'named' && (
            <Checkbox.Group
              label={t('interactionSettings.quarantine.approverList')}
              description={t('interactionSettings.quarantine.approverListHint')}
              value={draft.approver_ids}
              onChange={(ids) => set('approver_ids', ids)}
              error={problem('approver_ids')}
            >
              <Stack gap={6} mt={4}>
                {saved.approver_candidates.map((c) => (
                  <Checkbox
                    key={c.id}
                    value={c.id}
                    label={c.name ? `${c.name} (${c.email})` : c.email}
                    styles={{ label: { overflowWrap: 'anywhere' } }}
                  />
                ))}
              </Stack>
            </Checkbox.Group>
          )}
        </Section>

        <Section id="quarantine-recipients" title={t('interactionSettings.quarantine.recipientsTitle')}>
          <Text size="sm" c="dimmed">
            {t('interactionSettings.quarantine.recipientsHint')}
          </Text>
          <SimpleGrid cols={{ base: 1, md: 3 }}>
            {RESTORABLE_VERDICTS.map((verdict) => (
              <VerdictRestore
                key={verdict}
                verdict={verdict}
                value={draft.verdicts[verdict]}
                onChange={(next) => set('verdicts', { ...draft.verdicts, [verdict]: next })}
              />
            ))}
          </SimpleGrid>
          <Text size="sm">{t('interactionSettings.quarantine.malware')}</Text>
        </Section>

        <Section id="quarantine-notices" title={t('interactionSettings.quarantine.noticesTitle')}>
          <Radio.Group
            label={t('interactionSettings.quarantine.frequencyLabel')}
            value={draft.notification_frequency}
            onChange={(v) => setFrequency(v as NotificationFrequency)}
          >
            <Stack gap="xs" mt={4}>
              {NOTIFICATION_FREQUENCIES.map((f) => (
                <Radio key={f} value={f} label={t(FREQUENCY_LABEL[f])} description={t(FREQUENCY_HINT[f])} />
              ))}
            </Stack>
          </Radio.Group>
          {draft.notification_frequency !== 'off' && (
            <NativeSelect
              label={t('interactionSettings.quarantine.schedule')}
              description={t('interactionSettings.quarantine.scheduleHint')}
              value={draft.digest_schedule}
              data={schedules.map((s) => ({ value: s, label: t(DIGEST_LABEL[s]) }))}
              onChange={(event) =>
                set(
                  'digest_schedule',
                  event.currentTarget.value as QuarantineSettingsInput['digest_schedule'],
                )
              }
              error={problem('digest_schedule')}
              maw={320}
            />
          )}
          {draft.notification_frequency === 'per_message' && (
            <>
              <WordingField
                label={t('interactionSettings.quarantine.noticeSubject')}
                description={t('interactionSettings.quarantine.noticeSubjectHint', {
                  max: NOTICE_SUBJECT_MAX,
                })}
                placeholder={saved.defaults.notice_subject}
                max={NOTICE_SUBJECT_MAX}
                placeholders={NOTICE_SUBJECT_PLACEHOLDERS}
                value={draft.notice_subject}
                onChange={(v) => set('notice_subject', v)}
              />
              <WordingField
                multiline
                label={t('interactionSettings.quarantine.noticeIntro')}
                description={t('interactionSettings.quarantine.noticeIntroHint', { max: NOTICE_INTRO_MAX })}
                max={NOTICE_INTRO_MAX}
                value={draft.notice_intro}
                onChange={(v) => set('notice_intro', v)}
              />
            </>
          )}
        </Section>

        {digestOn && (
          <Section id="quarantine-digest" title={t('interactionSettings.quarantine.digestTitle')}>
            <Checkbox.Group
              label={t('interactionSettings.quarantine.digestVerdicts')}
              description={t('interactionSettings.quarantine.digestVerdictsHint')}
              value={draft.digest_verdicts}
              onChange={(v) =>
                set(
                  'digest_verdicts',
                  RESTORABLE_VERDICTS.filter((verdict) => v.includes(verdict)),
                )
              }
              error={problem('digest_verdicts')}
            >
              <Group gap="md" mt={4}>
                {RESTORABLE_VERDICTS.map((verdict) => (
                  <Checkbox key={verdict} value={verdict} label={t(VERDICT_LABEL[verdict])} />
                ))}
              </Group>
            </Checkbox.Group>
            <NumberInput
              label={t('interactionSettings.quarantine.digestDays')}
              description={t('interactionSettings.quarantine.digestDaysHint', { max: DIGEST_DAYS_MAX })}
              placeholder={t(
                draft.digest_schedule === 'weekly'
                  ? 'interactionSettings.quarantine.digestDaysWeekly'
                  : 'interactionSettings.quarantine.digestDaysDaily',
              )}
              min={1}
              max={DIGEST_DAYS_MAX}
              allowDecimal={false}
              clampBehavior="strict"
              value={draft.digest_days ?? ''}
              onChange={(v) =>
                set('digest_days', typeof v === 'number' ? v : v === '' ? null : Number(v) || null)
              }
              maw={320}
            />
            <WordingField
              label={t('interactionSettings.quarantine.digestSubject')}
              description={t('interactionSettings.quarantine.digestSubjectHint', { max: NOTICE_SUBJECT_MAX })}
              placeholder={saved.defaults.digest_subject}
              max={NOTICE_SUBJECT_MAX}
              placeholders={DIGEST_SUBJECT_PLACEHOLDERS}
              value={draft.digest_subject}
              onChange={(v) => set('digest_subject', v)}
            />
            <WordingField
              multiline
              label={t('interactionSettings.quarantine.digestIntro')}
              description={t('interactionSettings.quarantine.noticeIntroHint', { max: NOTICE_INTRO_MAX })}
              max={NOTICE_INTRO_MAX}
              value={draft.digest_intro}
              onChange={(v) => set('digest_intro', v)}
            />
          </Section>
        )}

        <Text size="sm">
          {t('interactionSettings.quarantine.elsewhere')}{' '}
          <Anchor component={Link} to={`${ROUTES.configuration}/settings`} size="sm" underline="always">
            {t('interactionSettings.quarantine.elsewhereLink')}
          </Anchor>
        </Text>

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
