import {
  Alert,
  Button,
  Center,
  FileInput,
  Group,
  Loader,
  Paper,
  Radio,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { API } from '@moat/contracts/api-paths';
import { THEMES, type ThemeMode } from '@moat/contracts/constants';
import { LOGO_MAX_BYTES, LOGO_MIME_TYPES, type LogoMime } from '@moat/contracts/customization';
import { useQuery } from '@tanstack/react-query';
import { type ReactNode, useEffect, useState } from 'react';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { BrandLogo } from '../../../components/ui/BrandLogo';
import { StatusNotice } from '../../../components/ui/StatusNotice';
import { useTranslation } from '../../../lib/i18n';
import { currentUserQueryOptions } from '../../session/api/get-current-user';
import {
  customizationQueryOptions,
  useClearLogo,
  useSetDefaultTheme,
  useUploadLogo,
} from '../api/customization';

const THEME_LABEL = { mixed: 'customization.theme.mixed', dark: 'customization.theme.dark' } as const;

/** The file as base64, for the upload's JSON body. */
function base64Of(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

/** Where the logo shows: a small frame of each kind of page. */
function PreviewFrame({ label, dark, children }: { label: string; dark?: boolean; children: ReactNode }) {
  return (
    <Paper
      withBorder
      radius="md"
      p="sm"
      className={dark ? 'customization-preview customization-preview--bar' : 'customization-preview'}
    >
      <Stack gap={6} align="center">
        <Text size="xs">{label}</Text>
        {children}
      </Stack>
    </Paper>
  );
}

function LogoSection() {
  const { t } = useTranslation();
  const upload = useUploadLogo();
  const clear = useClearLogo();
  const settings = useQuery(customizationQueryOptions()).data;
  const [file, setFile] = useState<File | null>(null);
  const [chosenUrl, setChosenUrl] = useState<string | null>(null);
  const [version, setVersion] = useState(() => Date.now());
  const [tooBig, setTooBig] = useState(false);
  const [done, setDone] = useState<string | null>(null);

  useEffect(() => {
    if (!file) return setChosenUrl(null);
    const url = URL.createObjectURL(file);
    setChosenUrl(url);
    return () => URL.revokeObjectURL(url);
  }, [file]);

  const current = `${API.customIcon}?v=${version}`;
  const shown = chosenUrl ?? current;
  const send = async () => {
    if (!file) return;
    const mime = file.type as LogoMime;
    upload.mutate(
      { mime: LOGO_MIME_TYPES.includes(mime) ? mime : ('image/png' as LogoMime), data: await base64Of(file) },
      {
        onSuccess: () => {
          setFile(null);
          setVersion(Date.now());
          setDone(t('customization.logo.uploaded'));
        },
      },
    );
  };
  const error = upload.error ?? clear.error;

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="customization-logo">
      <Stack gap="sm">
        <Title order={2} size="h4" id="customization-logo">
          {t('customization.logo.title')}
        </Title>
        <Text size="sm">{t('customization.logo.intro')}</Text>
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <PreviewFrame label={t('customization.logo.onSignIn')}>
            <BrandLogo key={shown} src={shown} alt={t('customization.logo.previewAlt')} size={72} />
          </PreviewFrame>
          <PreviewFrame label={t('customization.logo.onPublic')}>
            <BrandLogo key={`p${shown}`} src={shown} alt={t('customization.logo.previewAlt')} size={56} />
          </PreviewFrame>
          <PreviewFrame label={t('customization.logo.onConsole')} dark>
            <BrandLogo key={`c${shown}`} src={shown} alt={t('customization.logo.previewAlt')} size={36} />
          </PreviewFrame>
        </SimpleGrid>
        {chosenUrl && (
          <Text size="sm" c="dimmed">
            {t('customization.logo.previewOfChosen')}
          </Text>
        )}
        <Group align="flex-end" wrap="wrap">
          <FileInput
            label={t('customization.logo.choose')}
            accept={LOGO_MIME_TYPES.join(',')}
            value={file}
            clearable
            onChange={(chosen) => {
              setDone(null);
              upload.reset();
              setTooBig(Boolean(chosen && chosen.size > LOGO_MAX_BYTES));
              setFile(chosen && chosen.size <= LOGO_MAX_BYTES ? chosen : null);
            }}
            error={tooBig ? t('customization.logo.tooBig') : undefined}
            w={320}
          />
          <Button onClick={send} disabled={!file} loading={upload.isPending}>
            {t('customization.logo.upload')}
          </Button>
          <Button
            variant="default"
            disabled={!settings?.has_custom_logo}
            loading={clear.isPending}
            onClick={() =>
              clear.mutate(undefined, {
                onSuccess: () => {
                  setVersion(Date.now());
                  setDone(t('customization.logo.cleared'));
                },
              })
            }
          >
            {t('customization.logo.restore')}
          </Button>
        </Group>
        {error && <ApiErrorAlert error={error} showServerMessage />}
        <StatusNotice message={done} />
      </Stack>
    </Paper>
  );
}

function ThemeSection({ current }: { current: ThemeMode }) {
  const { t } = useTranslation();
  const save = useSetDefaultTheme();
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="customization-theme">
      <Stack gap="sm">
        <Title order={2} size="h4" id="customization-theme">
          {t('customization.theme.title')}
        </Title>
        <Radio.Group
          label={t('customization.theme.label')}
          description={t('customization.theme.hint')}
          value={current}
          onChange={(value) => save.mutate(value as ThemeMode)}
        >
          <Group mt="xs">
            {THEMES.map((mode) => (
              <Radio key={mode} value={mode} label={t(THEME_LABEL[mode])} disabled={save.isPending} />
            ))}
          </Group>
        </Radio.Group>
        {save.isError && <ApiErrorAlert error={save.error} showServerMessage />}
      </Stack>
    </Paper>
  );
}

/**
 * System Settings → Customization (SPEC §2.4): the organisation's logo, previewed where it shows
 * (sign-in, public and console pages), uploaded or restored; and the theme its people start with.
 * Each half only with its flag; only an admin changes them.
 */
export function CustomizationScreen() {
  const { t } = useTranslation();
  const customization = useQuery(customizationQueryOptions());
  const isAdmin = useQuery(currentUserQueryOptions()).data?.role === 'admin';
  if (customization.isPending) {
    return (
      <Center py="xl">
        <Loader aria-label={t('customization.loading')} />
      </Center>
    );
  }
  if (customization.isError) return <ApiErrorAlert error={customization.error} />;
  const c = customization.data;
  return (
    <Stack gap="md">
      <Text size="sm">{t('customization.intro')}</Text>
      {!isAdmin && (
        <Alert variant="light" color="blue">
          {t('customization.adminOnly')}
        </Alert>
      )}
      {isAdmin && c.can_change_logo && <LogoSection />}
      {isAdmin && c.can_change_application_mode && <ThemeSection current={c.default_application_mode} />}
    </Stack>
  );
}
