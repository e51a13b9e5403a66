import {
  Button,
  Group,
  NativeSelect,
  NumberInput,
  Paper,
  Stack,
  Switch,
  Text,
  TextInput,
} from '@mantine/core';
import { DLP_ACTIONS, DLP_THRESHOLD_MAX, type DlpAction, type DlpDataTypeSetting } from '@moat/contracts/dlp';
import { useState } from 'react';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { StatusNotice } from '../../../components/ui/StatusNotice';
import { useTranslation } from '../../../lib/i18n';
import { useUpdateDataType } from '../api/dlp';
import { ACTION_LABEL, TYPE_NAME, TYPE_WHAT } from '../labels';
import { ActionBadge } from './ActionBadge';

const fileTypesText = (types: string[]) => types.join(', ');
const fileTypesOf = (text: string) =>
  text
    .split(/[\s,;]+/)
    .map((t) => t.trim())
    .filter(Boolean);

/** One data type: on or off, what happens to a message with it, from how many matches. */
function DataTypeCard({ setting }: { setting: DlpDataTypeSetting }) {
  const { t } = useTranslation();
  const save = useUpdateDataType();
  const [enabled, setEnabled] = useState(setting.enabled);
  const [action, setAction] = useState<DlpAction>(setting.action);
  const [threshold, setThreshold] = useState<number | string>(setting.threshold);
  const [fileTypes, setFileTypes] = useState(fileTypesText(setting.fileTypes));
  const [saved, setSaved] = useState(false);
  const isFileType = setting.type === 'file_type';
  const changed =
    enabled !== setting.enabled ||
    action !== setting.action ||
    Number(threshold) !== setting.threshold ||
    (isFileType && fileTypes !== fileTypesText(setting.fileTypes));
  const titleId = `dlp-type-${setting.type}`;

  const onSave = () => {
    setSaved(false);
    save.mutate(
      {
        type: setting.type,
        update: {
          enabled,
          action,
          threshold: Number(threshold) || 1,
          ...(isFileType ? { fileTypes: fileTypesOf(fileTypes) } : {}),
        },
      },
      {
        onSuccess: (next) => {
          setFileTypes(fileTypesText(next.fileTypes));
          setSaved(true);
        },
      },
    );
  };

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby={titleId}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Group gap="xs" wrap="wrap">
            <Text fw={600} id={titleId}>
              {t(TYPE_NAME[setting.type])}
            </Text>
            <ActionBadge action={action} off={!enabled} />
          </Group>
          <Switch
            checked={enabled}
            onChange={(e) => {
              setEnabled(e.currentTarget.checked);
              setSaved(false);
            }}
            label={t('dlp.check')}
          />
        </Group>
        <Text size="sm" c="dimmed">
          {t(TYPE_WHAT[setting.type])}
        </Text>
        <Group gap="sm" align="flex-start" wrap="wrap">
          <NativeSelect
            label={t('dlp.action')}
            value={action}
            disabled={!enabled}
            onChange={(e) => {
              setAction(e.currentTarget.value as DlpAction);
              setSaved(false);
            }}
            data={DLP_ACTIONS.map((a) => ({ value: a, label: t(ACTION_LABEL[a]) }))}
          />
          <NumberInput
            label={t('dlp.threshold')}
            description={t('dlp.thresholdHint')}
            value={threshold}
            disabled={!enabled}
            min={1}
            max={DLP_THRESHOLD_MAX}
            allowDecimal={false}
            w={240}
            onChange={(value) => {
              setThreshold(value);
              setSaved(false);
            }}
          />
        </Group>
        {isFileType && (
          <TextInput
            label={t('dlp.fileTypes')}
            description={t('dlp.fileTypesHint')}
            value={fileTypes}
            disabled={!enabled}
            onChange={(e) => {
              setFileTypes(e.currentTarget.value);
              setSaved(false);
            }}
          />
        )}
        {save.isError && <ApiErrorAlert error={save.error} showServerMessage />}
        <StatusNotice message={saved && !changed && t('dlp.saved')} />
        <Group>
          <Button size="xs" onClick={onSave} disabled={!changed} loading={save.isPending}>
            {t('dlp.save')}
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

/** Every built-in data type, each its own card. */
export function DataTypesPanel({ dataTypes }: { dataTypes: DlpDataTypeSetting[] }) {
  return (
    <Stack gap="sm">
      {dataTypes.map((setting) => (
        <DataTypeCard key={setting.type} setting={setting} />
      ))}
    </Stack>
  );
}
