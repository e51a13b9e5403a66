import { Button, CopyButton, Group, NativeSelect, Switch, TextInput } from '@mantine/core';
import { ROLES, type Role } from '@moat/contracts/deployment';
import { StatusNotice } from '../../../components/ui/StatusNotice';
import { useTranslation } from '../../../lib/i18n';
import { ROLE_LABEL } from '../../user-management/labels';

/* What the single sign-on settings forms (SAML, Microsoft, Google) share. */

/** URLs and XML in a monospace face; labels stay in the page's. */
export const MONO = { input: { fontFamily: 'var(--mantine-font-family-monospace)' } };

export function CopyField({ label, value }: { label: string; value: string }) {
  const { t } = useTranslation();
  return (
    <Group align="flex-end" gap="xs" wrap="nowrap">
      <TextInput label={label} value={value} readOnly style={{ flex: 1, minWidth: 0 }} styles={MONO} />
      <CopyButton value={value}>
        {({ copied, copy }) => (
          <Button variant="default" onClick={copy} aria-label={`${t('settings.sso.copy')}: ${label}`}>
            {copied ? t('settings.sso.copied') : t('settings.sso.copy')}
          </Button>
        )}
      </CopyButton>
    </Group>
  );
}

/** Users created at their first sign-in, and their role. */
export function JitFields({
  enabled,
  role,
  onEnabled,
  onRole,
}: {
  enabled: boolean;
  role: Role;
  onEnabled: (value: boolean) => void;
  onRole: (value: Role) => void;
}) {
  const { t } = useTranslation();
  return (
    <>
      <Switch
        label={t('settings.sso.jit')}
        description={t('settings.sso.jitHint')}
        checked={enabled}
        onChange={(event) => onEnabled(event.currentTarget.checked)}
      />
      {enabled && (
        <NativeSelect
          label={t('settings.sso.jitRole')}
          value={role}
          data={ROLES.map((value) => ({ value, label: t(ROLE_LABEL[value]) }))}
          onChange={(event) => onRole(event.currentTarget.value as Role)}
          w={280}
        />
      )}
    </>
  );
}

/** The saved notice (announced) and the discard and save buttons of a form saved on its own. */
export function SaveFooter({
  saved,
  dirty,
  pending,
  onDiscard,
  saveLabel,
}: {
  /** The notice once saved; false before. */
  saved: string | false;
  dirty: boolean;
  pending: boolean;
  onDiscard: () => void;
  saveLabel: string;
}) {
  const { t } = useTranslation();
  return (
    <>
      <StatusNotice message={saved} />
      <Group justify="flex-end" gap="sm">
        <Button variant="default" disabled={!dirty} onClick={onDiscard}>
          {t('settings.discard')}
        </Button>
        <Button type="submit" disabled={!dirty} loading={pending}>
          {saveLabel}
        </Button>
      </Group>
    </>
  );
}
