import {
  Alert,
  Button,
  Center,
  FileButton,
  Group,
  Loader,
  Stack,
  Switch,
  Text,
  Textarea,
  Title,
} from '@mantine/core';
import type { Role } from '@moat/contracts/deployment';
import type { SamlIdp, SignInSettings, SignInSettingsUpdate } from '@moat/contracts/sso';
import { useQuery } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { formatDateTime } from '../../../lib/format';
import { isApiError } from '../../../lib/http';
import { useTranslation } from '../../../lib/i18n';
import { useDraft } from '../../../lib/use-draft';
import {
  signInSettingsQueryOptions,
  useSaveSignInSettings,
  useTestSamlMetadata,
} from '../api/sign-in-settings';
import { CopyField, JitFields, MONO, SaveFooter } from './SsoFormParts';

interface Draft {
  enabled: boolean;
  metadataXml: string;
  jitEnabled: boolean;
  jitRole: Role;
  passwordsAllowed: boolean;
}

const draftOf = (s: SignInSettings): Draft => ({
  enabled: s.saml.enabled,
  metadataXml: '',
  jitEnabled: s.saml.jit_enabled,
  jitRole: s.saml.jit_role,
  passwordsAllowed: s.passwords_allowed,
});

/** What the form changes, as the API takes it. */
function changesOf(saved: SignInSettings, draft: Draft): SignInSettingsUpdate {
  const saml: NonNullable<SignInSettingsUpdate['saml']> = {};
  if (draft.enabled !== saved.saml.enabled) saml.enabled = draft.enabled;
  if (draft.metadataXml.trim()) saml.metadata_xml = draft.metadataXml.trim();
  if (draft.jitEnabled !== saved.saml.jit_enabled) saml.jit_enabled = draft.jitEnabled;
  if (draft.jitRole !== saved.saml.jit_role) saml.jit_role = draft.jitRole;
  const body: SignInSettingsUpdate = {};
  if (Object.keys(saml).length > 0) body.saml = saml;
  if (draft.passwordsAllowed !== saved.passwords_allowed) body.passwords_allowed = draft.passwordsAllowed;
  return body;
}

function IdpSummary({ idp, title }: { idp: SamlIdp; title: string }) {
  const { t } = useTranslation();
  return (
    <Stack gap={4}>
      <Text fw={600} size="sm">
        {title}
      </Text>
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {t('settings.sso.idpEntityId')}: {idp.entity_id}
      </Text>
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {t('settings.sso.idpSsoUrl')}: {idp.sso_url}
      </Text>
      {idp.certificates.map((cert) => (
        <Text key={cert.sha256} size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
          {t('settings.sso.idpCertificate', {
            sha256: `${cert.sha256.slice(0, 23)}…`,
            notAfter: formatDateTime(cert.not_after),
          })}
        </Text>
      ))}
    </Stack>
  );
}

/**
 * Configuration → Settings → Single sign-on (admins, issue 15): the values to enter at the
 * identity provider, its metadata (pasted or from a file, tested before saving), SAML on or off,
 * users created at first sign-in, and whether passwords stay allowed. Saved on its own; audited.
 */
export function SingleSignOnSettings() {
  const { t } = useTranslation();
  const settings = useQuery(signInSettingsQueryOptions());
  const save = useSaveSignInSettings();
  const test = useTestSamlMetadata();
  const { draft, set, justSaved, savedAs, discard } = useDraft(settings.data, draftOf);

  if (settings.isPending || (settings.data && !draft)) {
    return (
      <Center py="md">
        <Loader size="sm" aria-label={t('settings.loading')} />
      </Center>
    );
  }
  if (settings.isError) return <ApiErrorAlert error={settings.error} />;
  if (!draft) return null;

  const current = settings.data;
  const changes = changesOf(current, draft);
  const dirty = Object.keys(changes).length > 0;
  const fieldError = (field: string) =>
    isApiError(save.error) &&
    save.error.details?.some((d) => d.field === `body.${field}` || d.field === field)
      ? save.error.message
      : undefined;
  const metadataError =
    fieldError('saml.metadata_xml') ?? (isApiError(test.error) ? test.error.message : undefined);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!dirty) return;
    save.mutate(changes, {
      onSuccess: (stored) => {
        savedAs(stored);
        test.reset();
      },
    });
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <Text size="sm">{t('settings.sso.intro')}</Text>
        <Stack gap="xs">
          <Title order={3} size="h5">
            {t('settings.sso.spTitle')}
          </Title>
          <CopyField label={t('settings.sso.spEntityId')} value={current.saml.sp.entity_id} />
          <CopyField label={t('settings.sso.spAcsUrl')} value={current.saml.sp.acs_url} />
          <CopyField label={t('settings.sso.spMetadataUrl')} value={current.saml.sp.metadata_url} />
        </Stack>
        <Textarea
          label={t('settings.sso.metadata')}
          description={t('settings.sso.metadataHint')}
          autosize
          minRows={4}
          maxRows={10}
          styles={MONO}
          value={draft.metadataXml}
          onChange={(event) => {
            test.reset();
            set('metadataXml', event.currentTarget.value);
          }}
          error={metadataError}
        />
        <Group gap="sm" wrap="wrap">
          <FileButton
            accept=".xml,application/xml,text/xml,application/samlmetadata+xml"
            onChange={(file) => {
              test.reset();
              file?.text().then((text) => set('metadataXml', text));
            }}
          >
            {(props) => (
              <Button variant="default" {...props}>
                {t('settings.sso.uploadMetadata')}
              </Button>
            )}
          </FileButton>
          <Button
            variant="default"
            disabled={!draft.metadataXml.trim()}
            loading={test.isPending}
            onClick={() => test.mutate(draft.metadataXml.trim())}
          >
            {t('settings.sso.test')}
          </Button>
        </Group>
        {test.data && (
          <Alert color="green" variant="light">
            <IdpSummary idp={test.data} title={t('settings.sso.testOk')} />
          </Alert>
        )}
        {current.saml.idp ? (
          <IdpSummary idp={current.saml.idp} title={t('settings.sso.idpTitle')} />
        ) : (
          <Text size="sm" c="dimmed">
            {t('settings.sso.noIdp')}
          </Text>
        )}
        <Switch
          label={t('settings.sso.enabled')}
          description={t('settings.sso.enabledHint')}
          checked={draft.enabled}
          onChange={(event) => set('enabled', event.currentTarget.checked)}
          error={fieldError('saml.enabled')}
        />
        <JitFields
          enabled={draft.jitEnabled}
          role={draft.jitRole}
          onEnabled={(value) => set('jitEnabled', value)}
          onRole={(value) => set('jitRole', value)}
        />
        <Switch
          label={t('settings.sso.passwordsAllowed')}
          description={t('settings.sso.passwordsAllowedHint')}
          checked={draft.passwordsAllowed}
          onChange={(event) => set('passwordsAllowed', event.currentTarget.checked)}
          error={fieldError('passwords_allowed')}
        />
        {save.isError &&
          !fieldError('saml.metadata_xml') &&
          !fieldError('saml.enabled') &&
          !fieldError('passwords_allowed') && <ApiErrorAlert error={save.error} showServerMessage />}
        <SaveFooter
          saved={justSaved && t('settings.sso.saved')}
          dirty={dirty}
          pending={save.isPending}
          onDiscard={() => discard(current)}
          saveLabel={t('settings.sso.save')}
        />
      </Stack>
    </form>
  );
}
