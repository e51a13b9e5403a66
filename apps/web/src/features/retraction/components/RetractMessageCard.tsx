import { Alert, Anchor, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import type { RetractionVerdict } from '@moat/contracts/retraction';
import { ROUTES } from '@moat/contracts/routes';
import { useState } from 'react';
import { Link } from 'react-router';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { useTranslation } from '../../../lib/i18n';
import { useRetractMessage } from '../api/retraction';
import { VerdictSelect } from './VerdictSelect';

/**
 * On a delivered message's trace: the admin found it bad after delivery and pulls every delivered
 * copy of it (all its recipients) back out of the mailboxes, held as the verdict chosen.
 */
export function RetractMessageCard({ mailLogId }: { mailLogId: string }) {
  const { t } = useTranslation();
  const [verdict, setVerdict] = useState<RetractionVerdict>('phishing');
  const retract = useRetractMessage();
  return (
    <Card withBorder padding="md" component="section" aria-labelledby="trace-retract">
      <Stack gap="sm">
        <Title order={2} size="h4" id="trace-retract">
          {t('retraction.message.title')}
        </Title>
        <Text size="sm">{t('retraction.message.intro')}</Text>
        <Group align="flex-end" gap="sm" wrap="wrap">
          <VerdictSelect value={verdict} onChange={setVerdict} w={180} />
          <Button
            color="red"
            variant="light"
            loading={retract.isPending}
            disabled={retract.isSuccess}
            onClick={() => retract.mutate({ mail_log_id: mailLogId, verdict })}
          >
            {t('retraction.message.retract')}
          </Button>
        </Group>
        {retract.isError && <ApiErrorAlert error={retract.error} />}
        {retract.isSuccess && (
          <Alert color="teal" role="status">
            {retract.data.copies === 0
              ? t('retraction.message.nothing')
              : t('retraction.screen.started', { count: retract.data.copies })}{' '}
            <Anchor component={Link} to={`${ROUTES.mailExplorer}/retract`}>
              {t('retraction.message.progress')}
            </Anchor>
          </Alert>
        )}
      </Stack>
    </Card>
  );
}
