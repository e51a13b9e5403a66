import {
  Alert,
  Anchor,
  Badge,
  Box,
  Center,
  Grid,
  Group,
  Loader,
  NativeSelect,
  Paper,
  Radio,
  SegmentedControl,
  Stack,
  Switch,
  Text,
  Title,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { ROUTES } from '@moat/contracts/routes';
import {
  BANNER_COLOURS,
  BANNER_PALETTE,
  BANNER_TEXT_MAX,
  BANNER_VERDICTS,
  type BannerColour,
  type BannerVerdict,
  type SmartBanners,
  type SmartBannersInput,
  SUBJECT_TAG_MAX,
} from '@moat/contracts/smart-banners';
import { type FormEvent, useId, useState } from 'react';
import { Link } from 'react-router';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { Field } from '../../../components/ui/Field';
import { Section } from '../../../components/ui/Section';
import { SettingsLoading, SettingsSaveBar, useSettingsForm } from '../../../components/ui/SettingsForm';
import { draftWordingProblem, WordingField } from '../../../components/ui/WordingField';
import type { TranslationKey } from '../../../lib/i18n';
import { useTranslation } from '../../../lib/i18n';
import { ACTION_LABEL, VERDICT_LABEL } from '../../policy/labels';
import { useBannerSamples } from '../api/get-banner-samples';
import { useSmartBanners } from '../api/get-smart-banners';
import { useBannerPreview } from '../api/preview-banner';
import { useSaveSmartBanners } from '../api/save-smart-banners';

const COLOUR_LABEL: Record<BannerColour, TranslationKey> = {
  red: 'smartBanners.colours.red',
  orange: 'smartBanners.colours.orange',
  yellow: 'smartBanners.colours.yellow',
  blue: 'smartBanners.colours.blue',
  grey: 'smartBanners.colours.grey',
};

/** The form's copy: exactly what PUT takes. */
function draftOf(s: SmartBanners): SmartBannersInput {
  const style = (v: BannerVerdict) => {
    const { text, colour, subject_tag, banner_on_delivery } = s.verdicts[v];
    return { text, colour, subject_tag, banner_on_delivery };
  };
  return {
    verdicts: { phishing: style('phishing'), spam: style('spam'), suspicious: style('suspicious') },
    senders: { ...s.senders },
  };
}

/** The draft as the API takes it: texts trimmed. */
function inputOf(d: SmartBannersInput): SmartBannersInput {
  const trim = (v: BannerVerdict) => ({
    ...d.verdicts[v],
    text: d.verdicts[v].text.trim(),
    subject_tag: d.verdicts[v].subject_tag.trim(),
  });
  return {
    verdicts: { phishing: trim('phishing'), spam: trim('spam'), suspicious: trim('suspicious') },
    senders: d.senders,
  };
}

const hasProblem = (d: SmartBannersInput) =>
  BANNER_VERDICTS.some(
    (v) =>
      draftWordingProblem(d.verdicts[v].text, BANNER_TEXT_MAX) !== null ||
      draftWordingProblem(d.verdicts[v].subject_tag, SUBJECT_TAG_MAX) !== null,
  );

/** What the policy does with a verdict, and so whether its banner is used. */
function PolicyLine({
  verdict,
  saved,
  draft,
  onBanner,
}: {
  verdict: BannerVerdict;
  saved: SmartBanners['verdicts'][BannerVerdict];
  draft: SmartBannersInput['verdicts'][BannerVerdict];
  onBanner: (on: boolean) => void;
}) {
  const { t } = useTranslation();
  const delivered = saved.action === 'deliver' || saved.action === 'deliver_banner';
  if (delivered) {
    return (
      <Switch
        label={t('smartBanners.onDelivery', { verdict: t(VERDICT_LABEL[verdict]).toLowerCase() })}
        description={t('smartBanners.onDeliveryHint')}
        checked={draft.banner_on_delivery}
        onChange={(event) => onBanner(event.currentTarget.checked)}
      />
    );
  }
  return (
    <Text size="sm" c="dimmed">
      {t(saved.action === 'strip' ? 'smartBanners.policyStrips' : 'smartBanners.policyHolds')}{' '}
      <Anchor component={Link} to={ROUTES.policy} size="sm" underline="always">
        {t('smartBanners.changeInPolicy')}
      </Anchor>
    </Text>
  );
}

/** The colour choice: swatches named by their colour, one choice of a radio group. */
function ColourChoice({ value, onChange }: { value: BannerColour; onChange: (c: BannerColour) => void }) {
  const { t } = useTranslation();
  return (
    <Radio.Group label={t('smartBanners.colour')} value={value} onChange={(v) => onChange(v as BannerColour)}>
      <Group gap="md" mt={4}>
        {BANNER_COLOURS.map((colour) => (
          <Radio
            key={colour}
            value={colour}
            label={
              <Group gap={6} wrap="nowrap">
                <Box
                  aria-hidden
                  w={18}
                  h={18}
                  style={{
                    borderRadius: 4,
                    border: `2px solid ${BANNER_PALETTE[colour].border}`,
                    background: BANNER_PALETTE[colour].background,
                  }}
                />
                {t(COLOUR_LABEL[colour])}
              </Group>
            }
          />
        ))}
      </Group>
    </Radio.Group>
  );
}

function VerdictBanner({
  verdict,
  saved,
  draft,
  onChange,
}: {
  verdict: BannerVerdict;
  saved: SmartBanners['verdicts'][BannerVerdict];
  draft: SmartBannersInput['verdicts'][BannerVerdict];
  onChange: (next: SmartBannersInput['verdicts'][BannerVerdict]) => void;
}) {
  const { t } = useTranslation();
  const headingId = useId();
  const used =
    saved.action === 'strip' ||
    ((saved.action === 'deliver' || saved.action === 'deliver_banner') && draft.banner_on_delivery);
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby={headingId}>
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Title order={2} size="h4" id={headingId}>
            {t(VERDICT_LABEL[verdict])}
          </Title>
          <Badge variant="light" color={used ? 'green' : 'gray'} className="quarantine-badge">
            {t(used ? 'smartBanners.inUse' : 'smartBanners.notInUse')}
          </Badge>
        </Group>
        <Text size="sm">{t('smartBanners.policySays', { action: t(ACTION_LABEL[saved.action]) })}</Text>
        <PolicyLine
          verdict={verdict}
          saved={saved}
          draft={draft}
          onBanner={(on) => onChange({ ...draft, banner_on_delivery: on })}
        />
        <WordingField
          multiline
          label={t('smartBanners.text')}
          description={t('smartBanners.textHint', { max: BANNER_TEXT_MAX })}
          placeholder={saved.default_text}
          max={BANNER_TEXT_MAX}
          value={draft.text}
          onChange={(text) => onChange({ ...draft, text })}
        />
        <ColourChoice value={draft.colour} onChange={(colour) => onChange({ ...draft, colour })} />
        <WordingField
          label={t('smartBanners.subjectTag')}
          description={t('smartBanners.subjectTagHint', { max: SUBJECT_TAG_MAX })}
          placeholder={t('smartBanners.subjectTagExample', { verdict: t(VERDICT_LABEL[verdict]) })}
          max={SUBJECT_TAG_MAX}
          value={draft.subject_tag}
          onChange={(subject_tag) => onChange({ ...draft, subject_tag })}
        />
      </Stack>
    </Paper>
  );
}

/**
 * The preview: one of the tenant's held messages (or the built-in example) as its recipient
 * would get it under the settings on screen, shown in a frame that runs nothing and loads
 * nothing (the server also made the message inert).
 */
function BannerPreviewPanel({ draft, problem }: { draft: SmartBannersInput; problem: boolean }) {
  const { t, i18n } = useTranslation();
  const samples = useBannerSamples();
  const [messageId, setMessageId] = useState<string>('');
  const [verdict, setVerdict] = useState<BannerVerdict>('suspicious');
  const [debounced] = useDebouncedValue(inputOf(draft), 400);
  const preview = useBannerPreview(
    problem ? null : { message_id: messageId === '' ? null : messageId, verdict, settings: debounced },
  );
  const headingId = useId();
  const date = (iso: string) =>
    new Date(iso).toLocaleString(i18n.language, { dateStyle: 'medium', timeStyle: 'short' });
  const options = [
    { value: '', label: t('smartBanners.preview.example') },
    ...(samples.data?.items ?? []).map((s) => ({
      value: s.id,
      label: t('smartBanners.preview.sample', {
        subject: s.subject || t('smartBanners.preview.noSubject'),
        sender: s.sender,
        date: date(s.received_at),
      }),
    })),
  ];
  const p = preview.data;
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby={headingId}>
      <Stack gap="sm">
        <Title order={2} size="h4" id={headingId}>
          {t('smartBanners.preview.title')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('smartBanners.preview.hint')}
        </Text>
        <NativeSelect
          label={t('smartBanners.preview.message')}
          data={options}
          value={messageId}
          onChange={(event) => setMessageId(event.currentTarget.value)}
        />
        {samples.data && samples.data.items.length === 0 && (
          <Text size="xs" c="dimmed">
            {t('smartBanners.preview.noSamples')}
          </Text>
        )}
        <Stack gap={4}>
          <Text size="sm" fw={500} id={`${headingId}-verdict`}>
            {t('smartBanners.preview.verdict')}
          </Text>
          <SegmentedControl
            aria-labelledby={`${headingId}-verdict`}
            value={verdict}
            onChange={(v) => setVerdict(v as BannerVerdict)}
            data={BANNER_VERDICTS.map((v) => ({ value: v, label: t(VERDICT_LABEL[v]) }))}
            fullWidth
          />
        </Stack>
        {problem && <Alert color="yellow">{t('smartBanners.preview.fixFirst')}</Alert>}
        {preview.isError && <ApiErrorAlert error={preview.error} showServerMessage />}
        {!p && preview.isFetching && (
          <Center py="md">
            <Loader size="sm" aria-label={t('smartBanners.preview.loading')} />
          </Center>
        )}
        {p && (
          <Stack gap="xs">
            {!p.bannered && (
              <Alert color="blue" variant="light">
                {t('smartBanners.preview.notBannered', { verdict: t(VERDICT_LABEL[verdict]).toLowerCase() })}
              </Alert>
            )}
            <dl className="preview-fields">
              <Field label={t('smartBanners.preview.from')}>{p.from}</Field>
              <Field label={t('smartBanners.preview.to')}>{p.to}</Field>
              <Field label={t('smartBanners.preview.subject')}>
                {p.subject || t('smartBanners.preview.noSubject')}
              </Field>
            </dl>
            <iframe
              title={t('smartBanners.preview.frameTitle')}
              sandbox=""
              referrerPolicy="no-referrer"
              srcDoc={p.html}
              style={{
                width: '100%',
                height: 420,
                border: '1px solid var(--mantine-color-default-border)',
                borderRadius: 4,
                background: '#fff',
                opacity: preview.isFetching ? 0.6 : 1,
              }}
            />
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}

/**
 * User Interaction → Smart Banners (admins): the banner each verdict gets when the gateway
 * delivers it — whether it gets one (the policy's own deliver / deliver with a banner), its words,
 * colour and subject tag, which senders are spared — with a live preview on one of the tenant's
 * own messages. Saved at once for every verdict, audited, used for the next message.
 */
export function SmartBannersScreen() {
  const { t } = useTranslation();
  const settings = useSmartBanners();
  const save = useSaveSmartBanners();
  const { draft, set, justSaved, savedAs, discard, input, dirty } = useSettingsForm(
    settings.data,
    draftOf,
    inputOf,
  );

  if (settings.isPending || (settings.data && !draft)) {
    return <SettingsLoading label={t('smartBanners.loading')} />;
  }
  if (settings.isError) return <ApiErrorAlert error={settings.error} />;
  if (!draft || !input) return null;

  const saved = settings.data;
  const problem = hasProblem(draft);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!dirty || problem) return;
    save.mutate(input, { onSuccess: savedAs });
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <Text size="sm">{t('smartBanners.intro')}</Text>
        <Grid gap="md">
          <Grid.Col span={{ base: 12, lg: 7 }}>
            <Stack gap="md">
              {BANNER_VERDICTS.map((verdict) => (
                <VerdictBanner
                  key={verdict}
                  verdict={verdict}
                  saved={saved.verdicts[verdict]}
                  draft={draft.verdicts[verdict]}
                  onChange={(next) => set('verdicts', { ...draft.verdicts, [verdict]: next })}
                />
              ))}
              <Section id="smart-banners-senders" title={t('smartBanners.senders.title')}>
                <Text size="sm" c="dimmed">
                  {t('smartBanners.senders.hint')}
                </Text>
                <Switch
                  label={t('smartBanners.senders.allowListed')}
                  description={t('smartBanners.senders.allowListedHint')}
                  checked={draft.senders.skip_allow_listed}
                  onChange={(event) =>
                    set('senders', { ...draft.senders, skip_allow_listed: event.currentTarget.checked })
                  }
                />
                <Switch
                  label={t('smartBanners.senders.internal')}
                  description={t('smartBanners.senders.internalHint')}
                  checked={draft.senders.skip_internal}
                  onChange={(event) =>
                    set('senders', { ...draft.senders, skip_internal: event.currentTarget.checked })
                  }
                />
              </Section>
              <Section id="smart-banners-placement" title={t('smartBanners.placement.title')}>
                <Text size="sm">{t('smartBanners.placement.body')}</Text>
                <Text size="sm">{t('smartBanners.placement.text')}</Text>
                <Text size="sm">{t('smartBanners.placement.subject')}</Text>
              </Section>
            </Stack>
          </Grid.Col>
          <Grid.Col span={{ base: 12, lg: 5 }}>
            <Box pos={{ base: 'static', lg: 'sticky' }} top={16}>
              <BannerPreviewPanel draft={draft} problem={problem} />
            </Box>
          </Grid.Col>
        </Grid>
        <SettingsSaveBar
          error={save.error}
          savedText={justSaved && t('smartBanners.saved')}
          dirty={dirty}
          blocked={problem}
          pending={save.isPending}
          onDiscard={() => discard(saved)}
          saveLabel={t('smartBanners.save')}
          discardLabel={t('smartBanners.discard')}
        />
      </Stack>
    </form>
  );
}
