import {
  Button,
  Group,
  NativeSelect,
  NumberInput,
  Paper,
  SegmentedControl,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import {
  DLP_ACTIONS,
  DLP_CUSTOM_RULES_MAX,
  DLP_PATTERN_MAX,
  DLP_THRESHOLD_MAX,
  type DlpAction,
  type DlpCustomKind,
  type DlpCustomRule,
} from '@moat/contracts/dlp';
import { type FormEvent, useState } from 'react';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog';
import { StatusNotice } from '../../../components/ui/StatusNotice';
import { isApiError } from '../../../lib/http';
import { useTranslation } from '../../../lib/i18n';
import { useDeleteRule, useSaveRule } from '../api/dlp';
import { ACTION_LABEL } from '../labels';
import { ActionBadge } from './ActionBadge';

const WRAP = { overflowWrap: 'anywhere' } as const;

interface Draft {
  name: string;
  kind: DlpCustomKind;
  keywords: string;
  pattern: string;
  enabled: boolean;
  action: DlpAction;
  threshold: number | string;
}

const EMPTY: Draft = {
  name: '',
  kind: 'keywords',
  keywords: '',
  pattern: '',
  enabled: true,
  action: 'hold',
  threshold: 1,
};

const draftOf = (rule: DlpCustomRule): Draft => ({
  name: rule.name,
  kind: rule.kind,
  keywords: rule.keywords.join('\n'),
  pattern: rule.pattern,
  enabled: rule.enabled,
  action: rule.action,
  threshold: rule.threshold,
});

/** Add or change a custom rule: the server checks the expression (RE2) and says what is wrong. */
function RuleForm({ rule, onDone }: { rule: DlpCustomRule | null; onDone: (message: string) => void }) {
  const { t } = useTranslation();
  const save = useSaveRule();
  const [draft, setDraft] = useState<Draft>(rule ? draftOf(rule) : EMPTY);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }));
    if (save.isError) save.reset();
  };
  // The server's reason for a field (an expression RE2 cannot take, no keyword) goes under it.
  const fieldError = (field: string) =>
    isApiError(save.error) ? save.error.details?.find((d) => d.field === field)?.message : undefined;
  const inlineError = fieldError('pattern') ?? fieldError('keywords');

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(
      {
        id: rule?.id ?? null,
        input: {
          name: draft.name,
          kind: draft.kind,
          keywords: draft.keywords
            .split('\n')
            .map((k) => k.trim())
            .filter(Boolean),
          pattern: draft.kind === 'regex' ? draft.pattern : '',
          enabled: draft.enabled,
          action: draft.action,
          threshold: Number(draft.threshold) || 1,
        },
      },
      {
        onSuccess: (saved) => {
          if (!rule) setDraft(EMPTY);
          onDone(t(rule ? 'dlp.custom.changed' : 'dlp.custom.added', { name: saved.name }));
        },
      },
    );
  };

  return (
    <form
      onSubmit={onSubmit}
      aria-label={rule ? t('dlp.custom.editTitle', { name: rule.name }) : t('dlp.custom.addTitle')}
    >
      <Stack gap="xs">
        <TextInput
          label={t('dlp.custom.name')}
          required
          maxLength={100}
          value={draft.name}
          onChange={(e) => set('name', e.currentTarget.value)}
        />
        <SegmentedControl
          value={draft.kind}
          onChange={(value) => set('kind', value as DlpCustomKind)}
          data={[
            { value: 'keywords', label: t('dlp.custom.kinds.keywords') },
            { value: 'regex', label: t('dlp.custom.kinds.regex') },
          ]}
          aria-label={t('dlp.custom.kind')}
        />
        {draft.kind === 'keywords' ? (
          <Textarea
            label={t('dlp.custom.keywords')}
            description={t('dlp.custom.keywordsHint')}
            autosize
            minRows={3}
            maxRows={10}
            value={draft.keywords}
            error={fieldError('keywords')}
            onChange={(e) => set('keywords', e.currentTarget.value)}
          />
        ) : (
          <TextInput
            label={t('dlp.custom.pattern')}
            description={t('dlp.custom.patternHint')}
            ff="monospace"
            maxLength={DLP_PATTERN_MAX}
            value={draft.pattern}
            error={fieldError('pattern')}
            onChange={(e) => set('pattern', e.currentTarget.value)}
          />
        )}
        <Group gap="sm" align="flex-end" wrap="wrap">
          <NativeSelect
            label={t('dlp.action')}
            value={draft.action}
            onChange={(e) => set('action', e.currentTarget.value as DlpAction)}
            data={DLP_ACTIONS.map((a) => ({ value: a, label: t(ACTION_LABEL[a]) }))}
          />
          <NumberInput
            label={t('dlp.threshold')}
            min={1}
            max={DLP_THRESHOLD_MAX}
            allowDecimal={false}
            w={160}
            value={draft.threshold}
            onChange={(value) => set('threshold', value)}
          />
          <Switch
            label={t('dlp.check')}
            checked={draft.enabled}
            onChange={(e) => set('enabled', e.currentTarget.checked)}
          />
        </Group>
        {save.isError && !inlineError && <ApiErrorAlert error={save.error} showServerMessage />}
        <Group>
          <Button type="submit" size="xs" loading={save.isPending}>
            {rule ? t('dlp.save') : t('dlp.custom.add')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function RuleCard({ rule, onDone }: { rule: DlpCustomRule; onDone: (message: string) => void }) {
  const { t } = useTranslation();
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const remove = useDeleteRule();
  return (
    <Paper withBorder p="sm" radius="md" component="li" style={{ listStyle: 'none' }}>
      {editing ? (
        <Stack gap="xs">
          <RuleForm
            rule={rule}
            onDone={(message) => {
              setEditing(false);
              onDone(message);
            }}
          />
          <Group>
            <Button size="xs" variant="default" onClick={() => setEditing(false)}>
              {t('dlp.cancel')}
            </Button>
          </Group>
        </Stack>
      ) : (
        <Stack gap={6}>
          <Group gap="xs" wrap="wrap">
            <Text fw={600} style={WRAP}>
              {rule.name}
            </Text>
            <ActionBadge action={rule.action} off={!rule.enabled} />
          </Group>
          <Text size="sm" ff={rule.kind === 'regex' ? 'monospace' : undefined} style={WRAP}>
            {rule.kind === 'regex' ? rule.pattern : rule.keywords.join(', ')}
          </Text>
          <Text size="xs" c="dimmed">
            {t(rule.kind === 'regex' ? 'dlp.custom.kinds.regex' : 'dlp.custom.kinds.keywords')}
            {' · '}
            {t('dlp.custom.from', { count: rule.threshold })}
          </Text>
          {remove.isError && <ApiErrorAlert error={remove.error} showServerMessage />}
          <Group gap="xs">
            <Button size="xs" variant="default" onClick={() => setEditing(true)}>
              {t('dlp.custom.edit', { name: rule.name })}
            </Button>
            <Button size="xs" variant="default" color="red" onClick={() => setConfirming(true)}>
              {t('dlp.custom.delete', { name: rule.name })}
            </Button>
          </Group>
        </Stack>
      )}
      <ConfirmDialog
        opened={confirming}
        title={t('dlp.custom.deleteTitle')}
        confirmLabel={t('dlp.custom.deleteConfirm')}
        confirmColor="red"
        pending={remove.isPending}
        onClose={() => setConfirming(false)}
        onConfirm={() =>
          remove.mutate(rule.id, {
            onSuccess: () => {
              setConfirming(false);
              onDone(t('dlp.custom.deleted', { name: rule.name }));
            },
          })
        }
      >
        {t('dlp.custom.deleteText', { name: rule.name })}
      </ConfirmDialog>
    </Paper>
  );
}

/** The organisation's own rules: keywords with a count, or a regular expression. */
export function CustomRulesPanel({ rules }: { rules: DlpCustomRule[] }) {
  const { t } = useTranslation();
  const [status, setStatus] = useState<string | null>(null);
  return (
    <Stack gap="md">
      <Text size="sm">{t('dlp.custom.intro', { max: DLP_CUSTOM_RULES_MAX })}</Text>
      <StatusNotice message={status} onClose={() => setStatus(null)} />
      {rules.length === 0 ? (
        <Text size="sm" c="dimmed">
          {t('dlp.custom.none')}
        </Text>
      ) : (
        <Stack gap="xs" component="ul" p={0} m={0}>
          {rules.map((rule) => (
            <RuleCard key={rule.id} rule={rule} onDone={setStatus} />
          ))}
        </Stack>
      )}
      {rules.length < DLP_CUSTOM_RULES_MAX && (
        <Paper withBorder p="md" radius="md">
          <Stack gap="xs">
            <Text fw={600}>{t('dlp.custom.addTitle')}</Text>
            <RuleForm rule={null} onDone={setStatus} />
          </Stack>
        </Paper>
      )}
    </Stack>
  );
}
