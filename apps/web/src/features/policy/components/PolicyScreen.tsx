import {
  Alert,
  Anchor,
  Button,
  Card,
  Center,
  Group,
  List,
  Loader,
  Modal,
  NativeSelect,
  NumberInput,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import {
  OVERRIDE_MATCHES,
  type OverrideMatch,
  POLICY_ACTIONS,
  type Policy,
  type PolicyAction,
  type PolicyInput,
  type WhatIf,
} from '@moat/contracts/policy';
import { VERDICTS, type Verdict } from '@moat/contracts/quarantine';
import { INTERACTION_SETTINGS_ROUTES, ROUTES } from '@moat/contracts/routes';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { Breakable } from '../../../components/ui/Breakable';
import { FitTable } from '../../../components/ui/FitTable';
import { isApiError } from '../../../lib/http';
import { useTranslation } from '../../../lib/i18n';
import { usePolicy } from '../api/get-policy';
import { useSavePolicy } from '../api/save-policy';
import { useWhatIfPolicy } from '../api/what-if-policy';
import { ACTION_LABEL, MATCH_LABEL, RESTORE_LABEL, VERDICT_LABEL } from '../labels';

interface DraftOverride {
  key: string;
  /** The stored override's id (a rule link may focus it); '' for one added now. */
  id: string;
  match: OverrideMatch;
  value: string;
  name: string;
  verdict: Verdict;
  action: PolicyAction;
}

interface Draft {
  verdicts: Policy['verdicts'];
  overrides: DraftOverride[];
  spam_thresholds: Policy['spam_thresholds'];
}

let keys = 0;
const nextKey = () => `o${++keys}`;

function draftOf(p: Policy): Draft {
  return {
    verdicts: p.verdicts,
    overrides: p.overrides.map((o) => ({ ...o, key: nextKey() })),
    spam_thresholds: p.spam_thresholds,
  };
}

/** What the Policy screen saves: the actions, overrides and thresholds (the rest is saved elsewhere). */
function inputOf(d: Draft): PolicyInput {
  const action = (v: Verdict) => ({ action: d.verdicts[v].action });
  return {
    verdicts: {
      phishing: action('phishing'),
      malware: action('malware'),
      spam: action('spam'),
      suspicious: action('suspicious'),
    },
    overrides: d.overrides.map(({ match, value, name, verdict, action }) => ({
      match,
      value,
      name,
      verdict,
      action,
    })),
    spam_thresholds: d.spam_thresholds,
  };
}

/** Malware is never delivered nor restorable (the API refuses it): those choices are not offered. */
const actionsFor = (verdict: Verdict) =>
  verdict === 'malware'
    ? POLICY_ACTIONS.filter((a) => a !== 'deliver' && a !== 'deliver_banner')
    : POLICY_ACTIONS;

/** The rule a `/policy/edit-rule/{id}` link names: a verdict or an override's id. */
function ruleOf(pathname: string): string | null {
  const prefix = `${ROUTES.policy}/edit-rule/`;
  if (!pathname.startsWith(prefix)) return null;
  try {
    return decodeURIComponent(pathname.slice(prefix.length).replace(/\/+$/, '')) || null;
  } catch {
    return null;
  }
}

/** A request's error in words: the API's message and each field's. */
function ErrorAlert({ error, title }: { error: unknown; title: string }) {
  if (!error) return null;
  const details = isApiError(error) ? (error.details ?? []) : [];
  return (
    <Alert color="red" title={title} role="alert">
      <Text size="sm">{error instanceof Error ? error.message : String(error)}</Text>
      {details.length > 0 && (
        <List size="sm">
          {details.map((d) => (
            <List.Item key={`${d.field}:${d.message}`}>{d.message}</List.Item>
          ))}
        </List>
      )}
    </Alert>
  );
}

/** "9 suspicious: delivered with banner → quarantined" lines and a sample of the messages. */
function WhatIfSummary({ result }: { result: WhatIf }) {
  const { t } = useTranslation();
  if (result.changed === 0) {
    return <Text>{t('policy.whatIf.none', { days: result.days, count: result.considered })}</Text>;
  }
  return (
    <Stack gap="sm">
      <Text fw={500}>{t('policy.whatIf.changed', { days: result.days, count: result.changed })}</Text>
      <List>
        {result.changes.map((c) => (
          <List.Item key={`${c.verdict}-${c.from}-${c.to}`}>
            {t('policy.whatIf.change', {
              count: c.count,
              verdict: t(VERDICT_LABEL[c.verdict]),
              from: t(ACTION_LABEL[c.from]),
              to: t(ACTION_LABEL[c.to]),
            })}
          </List.Item>
        ))}
      </List>
      {result.sample.length > 0 && (
        <FitTable
          caption={t('policy.whatIf.sample')}
          rows={result.sample}
          rowKey={(s) => s.id}
          columns={[
            {
              key: 'subject',
              label: t('policy.whatIf.subject'),
              cell: (s) => (
                <span className="list-text-anywhere">{s.subject || t('policy.whatIf.noSubject')}</span>
              ),
            },
            {
              key: 'recipient',
              label: t('policy.whatIf.recipient'),
              cell: (s) => <Breakable text={s.recipient} />,
            },
            { key: 'newAction', label: t('policy.whatIf.newAction'), cell: (s) => t(ACTION_LABEL[s.to]) },
          ]}
        />
      )}
    </Stack>
  );
}

function VerdictCard({
  verdict,
  value,
  readOnly,
  focused,
  onChange,
}: {
  verdict: Verdict;
  value: Policy['verdicts'][Verdict];
  readOnly: boolean;
  focused: boolean;
  onChange: (next: Policy['verdicts'][Verdict]) => void;
}) {
  const { t } = useTranslation();
  const ref = useRef<HTMLDivElement>(null);
  const headingId = useId();
  useEffect(() => {
    if (focused) {
      ref.current?.scrollIntoView?.({ block: 'center' });
      ref.current?.focus();
    }
  }, [focused]);
  return (
    <Card
      withBorder
      padding="md"
      ref={ref}
      tabIndex={focused ? -1 : undefined}
      aria-labelledby={headingId}
      component="section"
      data-focused={focused || undefined}
      style={focused ? { outline: '2px solid var(--mantine-primary-color-filled)' } : undefined}
    >
      <Stack gap="xs">
        <Title order={3} size="h5" id={headingId}>
          {t(VERDICT_LABEL[verdict])}
        </Title>
        <NativeSelect
          label={t('policy.fields.action')}
          disabled={readOnly}
          value={value.action}
          onChange={(e) => onChange({ ...value, action: e.currentTarget.value as PolicyAction })}
          data={actionsFor(verdict).map((a) => ({ value: a, label: t(ACTION_LABEL[a]) }))}
        />
        {/* Set in Settings → User Interaction → Quarantine: shown here, changed there. */}
        <Text size="sm">
          <Text span fw={500} size="sm">
            {t('policy.fields.restoreMode')}:
          </Text>{' '}
          {t(RESTORE_LABEL[value.restore_mode])}
          {value.restore_mode !== 'none' &&
            ` · ${t(value.identification_required ? 'policy.identificationOn' : 'policy.identificationOff')}`}
        </Text>
      </Stack>
    </Card>
  );
}

function OverrideRow({
  override,
  readOnly,
  focused,
  index,
  onChange,
  onRemove,
}: {
  override: DraftOverride;
  readOnly: boolean;
  focused: boolean;
  index: number;
  onChange: (next: DraftOverride) => void;
  onRemove: () => void;
}) {
  const { t } = useTranslation();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (focused) {
      ref.current?.scrollIntoView?.({ block: 'center' });
      ref.current?.focus();
    }
  }, [focused]);
  const n = index + 1;
  return (
    <Paper
      withBorder
      p="sm"
      ref={ref}
      tabIndex={focused ? -1 : undefined}
      role="group"
      aria-label={t('policy.overrides.itemLabel', { n })}
      style={focused ? { outline: '2px solid var(--mantine-primary-color-filled)' } : undefined}
    >
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 5 }} spacing="xs">
        <NativeSelect
          label={t('policy.overrides.match')}
          disabled={readOnly}
          value={override.match}
          onChange={(e) => onChange({ ...override, match: e.currentTarget.value as OverrideMatch })}
          data={OVERRIDE_MATCHES.map((m) => ({ value: m, label: t(MATCH_LABEL[m]) }))}
        />
        {override.match === 'group' && (
          <TextInput
            label={t('policy.overrides.groupName')}
            disabled={readOnly}
            value={override.name}
            onChange={(e) => onChange({ ...override, name: e.currentTarget.value })}
          />
        )}
        <TextInput
          label={t(
            override.match === 'recipient'
              ? 'policy.overrides.address'
              : override.match === 'domain'
                ? 'policy.overrides.domain'
                : 'policy.overrides.addresses',
          )}
          disabled={readOnly}
          value={override.value}
          placeholder={
            override.match === 'recipient'
              ? 'name@example.com'
              : override.match === 'domain'
                ? 'example.com'
                : 'a@example.com, b@example.com'
          }
          onChange={(e) => onChange({ ...override, value: e.currentTarget.value })}
        />
        <NativeSelect
          label={t('policy.overrides.verdict')}
          disabled={readOnly}
          value={override.verdict}
          onChange={(e) => {
            const verdict = e.currentTarget.value as Verdict;
            const allowed = actionsFor(verdict) as readonly PolicyAction[];
            onChange({
              ...override,
              verdict,
              action: allowed.includes(override.action) ? override.action : 'quarantine',
            });
          }}
          data={VERDICTS.map((v) => ({ value: v, label: t(VERDICT_LABEL[v]) }))}
        />
        <NativeSelect
          label={t('policy.overrides.action')}
          disabled={readOnly}
          value={override.action}
          onChange={(e) => onChange({ ...override, action: e.currentTarget.value as PolicyAction })}
          data={actionsFor(override.verdict).map((a) => ({ value: a, label: t(ACTION_LABEL[a]) }))}
        />
      </SimpleGrid>
      {!readOnly && (
        <Group justify="flex-end" mt="xs">
          <Button
            variant="subtle"
            color="red"
            size="xs"
            onClick={onRemove}
            aria-label={t('policy.overrides.removeLabel', { n })}
          >
            {t('policy.overrides.remove')}
          </Button>
        </Group>
      )}
    </Paper>
  );
}

/** The policy form once loaded: edits are held here until Save, which first shows the what-if. */
function PolicyForm({ policy, focus }: { policy: Policy; focus: string | null }) {
  const { t } = useTranslation();
  const readOnly = !policy.editable;
  const [draft, setDraft] = useState<Draft>(() => draftOf(policy));
  const [confirming, setConfirming] = useState(false);
  const [saved, setSaved] = useState(false);
  const whatIf = useWhatIfPolicy();
  const save = useSavePolicy();
  const input = useMemo(() => inputOf(draft), [draft]);
  const dirty = useMemo(
    () => JSON.stringify(input) !== JSON.stringify(inputOf(draftOf(policy))),
    [input, policy],
  );

  const change = (next: Partial<Draft>) => {
    setSaved(false);
    setDraft((d) => ({ ...d, ...next }));
  };
  const setOverride = (key: string, next: DraftOverride) =>
    change({ overrides: draft.overrides.map((o) => (o.key === key ? next : o)) });

  const review = () => {
    save.reset();
    whatIf.mutate(input, { onSuccess: () => setConfirming(true) });
  };
  const confirm = () =>
    save.mutate(input, {
      onSuccess: (p) => {
        setConfirming(false);
        setDraft(draftOf(p));
        setSaved(true);
      },
    });

  return (
    <Stack gap="lg">
      {readOnly && (
        <Alert color="blue" title={t('policy.readOnlyTitle')}>
          {t('policy.readOnly')}
        </Alert>
      )}

      <section aria-labelledby="policy-verdicts">
        <Title order={2} size="h4" id="policy-verdicts" mb="xs">
          {t('policy.verdictsTitle')}
        </Title>
        <Text size="sm" c="dimmed" mb="sm">
          {t('policy.verdictsHelp')}
        </Text>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          {VERDICTS.map((verdict) => (
            <VerdictCard
              key={verdict}
              verdict={verdict}
              value={draft.verdicts[verdict]}
              readOnly={readOnly}
              focused={focus === verdict}
              onChange={(next) => change({ verdicts: { ...draft.verdicts, [verdict]: next } })}
            />
          ))}
        </SimpleGrid>
      </section>

      <section aria-labelledby="policy-spam-thresholds">
        <Title order={2} size="h4" id="policy-spam-thresholds" mb="xs">
          {t('policy.spamThresholds.title')}
        </Title>
        <Text size="sm" c="dimmed" mb="sm">
          {t('policy.spamThresholds.help')}
        </Text>
        <SimpleGrid cols={{ base: 1, sm: 2 }} maw={560}>
          {(['suspicious', 'spam'] as const).map((band) => (
            <NumberInput
              key={band}
              label={t(band === 'spam' ? 'policy.spamThresholds.spam' : 'policy.spamThresholds.suspicious')}
              disabled={readOnly}
              min={-20}
              max={100}
              step={0.5}
              decimalScale={1}
              value={draft.spam_thresholds[band]}
              error={
                band === 'spam' && draft.spam_thresholds.spam < draft.spam_thresholds.suspicious
                  ? t('policy.spamThresholds.order')
                  : undefined
              }
              onChange={(value) =>
                change({
                  spam_thresholds: {
                    ...draft.spam_thresholds,
                    [band]: typeof value === 'number' ? value : Number.parseFloat(value) || 0,
                  },
                })
              }
            />
          ))}
        </SimpleGrid>
      </section>

      <section aria-labelledby="policy-elsewhere">
        <Title order={2} size="h4" id="policy-elsewhere" mb="xs">
          {t('policy.elsewhere.title')}
        </Title>
        <List size="sm" spacing={4}>
          <List.Item>
            {t('policy.elsewhere.banners')}{' '}
            <Anchor
              component={Link}
              to={INTERACTION_SETTINGS_ROUTES.smartBanners}
              size="sm"
              underline="always"
            >
              {t('nav.items.smartBanners')}
            </Anchor>
          </List.Item>
          <List.Item>
            {t('policy.elsewhere.recipients')}{' '}
            <Anchor component={Link} to={INTERACTION_SETTINGS_ROUTES.quarantine} size="sm" underline="always">
              {t('policy.elsewhere.recipientsLink')}
            </Anchor>
          </List.Item>
        </List>
      </section>

      <section aria-labelledby="policy-overrides">
        <Title order={2} size="h4" id="policy-overrides" mb="xs">
          {t('policy.overrides.title')}
        </Title>
        <Text size="sm" c="dimmed" mb="sm">
          {t('policy.overrides.help')}
        </Text>
        <Stack gap="sm">
          {draft.overrides.length === 0 && <Text size="sm">{t('policy.overrides.empty')}</Text>}
          {draft.overrides.map((o, index) => (
            <OverrideRow
              key={o.key}
              override={o}
              index={index}
              readOnly={readOnly}
              focused={focus !== null && focus === o.id}
              onChange={(next) => setOverride(o.key, next)}
              onRemove={() => change({ overrides: draft.overrides.filter((x) => x.key !== o.key) })}
            />
          ))}
          {!readOnly && (
            <Group>
              <Button
                variant="light"
                onClick={() =>
                  change({
                    overrides: [
                      ...draft.overrides,
                      {
                        key: nextKey(),
                        id: '',
                        match: 'recipient',
                        value: '',
                        name: '',
                        verdict: 'spam',
                        action: 'quarantine',
                      },
                    ],
                  })
                }
              >
                {t('policy.overrides.add')}
              </Button>
            </Group>
          )}
        </Stack>
      </section>

      <ErrorAlert error={whatIf.error} title={t('policy.errors.whatIf')} />
      <ErrorAlert error={!confirming ? save.error : null} title={t('policy.errors.save')} />
      {saved && (
        <Alert color="green" role="status">
          {t('policy.saved')}
        </Alert>
      )}

      {!readOnly && (
        <Group justify="flex-end">
          <Button variant="default" disabled={!dirty} onClick={() => change(draftOf(policy))}>
            {t('policy.discard')}
          </Button>
          <Button onClick={review} disabled={!dirty} loading={whatIf.isPending}>
            {t('policy.save')}
          </Button>
        </Group>
      )}

      <Modal
        opened={confirming}
        onClose={() => setConfirming(false)}
        title={t('policy.whatIf.title')}
        closeButtonProps={{ 'aria-label': t('common.close') }}
        size="lg"
        centered
      >
        <Stack>
          {whatIf.data && <WhatIfSummary result={whatIf.data} />}
          <ErrorAlert error={save.error} title={t('policy.errors.save')} />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              {t('policy.whatIf.cancel')}
            </Button>
            <Button onClick={confirm} loading={save.isPending}>
              {t('policy.whatIf.confirm')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}

/**
 * Policy (/policy, issue 11): per verdict the gateway's action, the spam thresholds and the
 * overrides per recipient, domain or group. A save shows first how the last 7 days' mail would
 * have changed; it is audited and in effect for the next message. What recipients may do and
 * how they are told (Settings → User Interaction → Quarantine) and the banners' words (Smart
 * Banners) are shown or linked here and changed there. `/policy/edit-rule/{id}` opens it on that rule.
 */
export function PolicyScreen() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const policy = usePolicy();
  const focus = ruleOf(pathname);
  if (policy.isPending) {
    return (
      <Center py="xl" role="status">
        <Loader aria-label={t('policy.loading')} />
      </Center>
    );
  }
  if (policy.isError) {
    return (
      <Stack>
        <ErrorAlert error={policy.error} title={t('policy.errors.load')} />
        <Group>
          <Button variant="light" onClick={() => void policy.refetch()}>
            {t('policy.retry')}
          </Button>
        </Group>
      </Stack>
    );
  }
  // The form keeps its edits across refetches; a save starts it again from what was stored.
  return <PolicyForm policy={policy.data} focus={focus} />;
}
