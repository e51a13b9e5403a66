import { Center, Loader, Stack, Text } from '@mantine/core';
import { useTranslation } from '../../../lib/i18n';

/** The wait between a proven sign-in and the console: a spinner that says so. */
export function SigningIn() {
  const { t } = useTranslation();
  return (
    <Center mih={200}>
      <Stack align="center" gap="sm" role="status">
        <Loader />
        <Text>{t('auth.signIn.signingIn')}</Text>
      </Stack>
    </Center>
  );
}
