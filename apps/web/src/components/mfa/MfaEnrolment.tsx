import { Button, Code, CopyButton, Group, Image, Stack, Text } from '@mantine/core';
import type { MfaEnrolment as Enrolment } from '@moat/contracts/auth';
import { useId } from 'react';
import { useTranslation } from '../../lib/i18n';
import { CodeInput, type CodeInputBinding } from '../ui/CodeInput';

const QR_SIZE_PX = 176;

/** The secret in groups of four, easier to type into an authenticator app. */
function grouped(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, '$1 ');
}

/**
 * The setup step of MFA (SPEC §4 "MFA setup dialog"), shared by the signed-in dialog and the
 * setup an admin requires at sign-in: the QR code, the same secret as text to type or copy (so any
 * authenticator app works), and the field for the first code.
 */
export function MfaEnrolment({
  enrolment,
  codeField,
}: {
  enrolment: Enrolment;
  codeField: CodeInputBinding;
}) {
  const { t } = useTranslation();
  const secretLabelId = useId();
  return (
    <Stack gap="md">
      <Text size="sm">{t('mfa.enrolment.scan')}</Text>
      <Group gap="lg" align="center" wrap="wrap">
        <Image
          src={enrolment.qrCodeSrc}
          alt={t('mfa.enrolment.qrAlt')}
          w={QR_SIZE_PX}
          h={QR_SIZE_PX}
          fit="contain"
          radius="sm"
        />
        <Stack gap="xs" miw={0} style={{ flex: '1 1 12rem' }}>
          <Text size="sm" id={secretLabelId}>
            {t('mfa.enrolment.manualKey')}
          </Text>
          <Code block aria-labelledby={secretLabelId} className="mfa-secret">
            {grouped(enrolment.secret)}
          </Code>
          <CopyButton value={enrolment.secret}>
            {({ copied, copy }) => (
              <Button variant="default" size="xs" onClick={copy} w="fit-content">
                {copied ? t('mfa.enrolment.copied') : t('mfa.enrolment.copy')}
              </Button>
            )}
          </CopyButton>
        </Stack>
      </Group>
      <CodeInput
        name="code"
        label={t('mfa.enrolment.codeLabel')}
        description={t('mfa.enrolment.codeDescription')}
        {...codeField}
        dialogFocus
      />
    </Stack>
  );
}
