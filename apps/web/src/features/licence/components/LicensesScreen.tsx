import { Alert, Button, Group, SimpleGrid, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { Field } from '../../../components/ui/Field';
import { deploymentQueryOptions } from '../../../lib/console-data/get-deployment';
import { licenceSeatsQueryOptions } from '../../../lib/console-data/get-licence-seats';
import { requestLicenceContact } from '../../../lib/console-data/request-licence-contact';
import type { TranslationKey } from '../../../lib/i18n';
import { useTranslation } from '../../../lib/i18n';
import { Loading, Section, StateBadge } from '../../system-status/components/parts';

/**
 * System Settings → Licenses (admins, when the licence page is shown): the licence's state and
 * dates, the seats per SaaS app and tool, and the licence contact request of SPEC §4.
 */
export function LicensesScreen() {
  const { t, i18n } = useTranslation();
  const deployment = useQuery(deploymentQueryOptions());
  const seats = useQuery(licenceSeatsQueryOptions());
  const contact = useMutation({ mutationFn: requestLicenceContact });
  if (deployment.isPending || seats.isPending) return <Loading label={t('licences.loading')} />;
  if (deployment.isError) return <ApiErrorAlert error={deployment.error} />;
  const d = deployment.data;
  const date = (iso: string | null) =>
    iso ? new Date(iso).toLocaleDateString(i18n.language, { dateStyle: 'long' }) : t('licences.none');
  const state = d.licence.isExpired
    ? { tone: 'bad' as const, key: 'licences.states.expired' }
    : d.licence.isAboutToExpire
      ? { tone: 'busy' as const, key: 'licences.states.aboutToExpire' }
      : d.deploymentMode === 'poc'
        ? {
            tone: d.trialExpired ? ('bad' as const) : ('busy' as const),
            key: d.trialExpired ? 'licences.states.trialEnded' : 'licences.states.trial',
          }
        : { tone: 'ok' as const, key: 'licences.states.active' };

  return (
    <Stack gap="md">
      <Text size="sm">{t('licences.intro')}</Text>
      <Section id="licence-state" title={t('licences.state')}>
        <Group gap="sm">
          <StateBadge tone={state.tone}>{t(state.key as TranslationKey)}</StateBadge>
          <Text size="sm">{t(`licences.modes.${d.deploymentMode}` as TranslationKey)}</Text>
        </Group>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <dl className="preview-fields">
            {d.deploymentMode === 'poc' ? (
              <Field label={t('licences.trialLeft')}>
                {d.pocExpiresInDays === null
                  ? t('licences.none')
                  : t('licences.days', { count: Math.max(0, d.pocExpiresInDays) })}
              </Field>
            ) : (
              <>
                <Field label={t('licences.started')}>{date(d.paidStartDate)}</Field>
                <Field label={t('licences.expires')}>{date(d.paidExpirationDate)}</Field>
                {d.paidExpirationInDays !== null && (
                  <Field label={t('licences.left')}>
                    {t('licences.days', { count: Math.max(0, d.paidExpirationInDays) })}
                  </Field>
                )}
              </>
            )}
          </dl>
        </SimpleGrid>
      </Section>
      <Section id="licence-seats" title={t('licences.seats.title')}>
        {seats.isError && <ApiErrorAlert error={seats.error} />}
        {seats.data && seats.data.data.length === 0 && <Text size="sm">{t('licences.seats.none')}</Text>}
        {seats.data && seats.data.data.length > 0 && (
          <Table verticalSpacing="xs" className="list-table">
            <VisuallyHidden component="caption">{t('licences.seats.caption')}</VisuallyHidden>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('licences.seats.for')}</Table.Th>
                <Table.Th>{t('licences.seats.seats')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {seats.data.data.map((row) => {
                const name = row.saas
                  ? t(`saasAndEngines.apps.${row.saas}.name` as TranslationKey)
                  : t(`saasAndEngines.tools.${row.security_tool}.name` as TranslationKey);
                return (
                  <Table.Tr key={`${row.saas}-${row.security_tool}`}>
                    <Table.Td className="list-table__cell">{name}</Table.Td>
                    <Table.Td>{row.seats.toLocaleString(i18n.language)}</Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        )}
      </Section>
      <Section id="licence-contact" title={t('licences.contact.title')}>
        <Text size="sm">
          {d.support_email
            ? t('licences.contact.text', { email: d.support_email })
            : t('licences.contact.noAddress')}
        </Text>
        <Group>
          <Button
            onClick={() => contact.mutate()}
            loading={contact.isPending}
            disabled={contact.data?.success}
          >
            {t('licence.banner.contactUs')}
          </Button>
        </Group>
        <div role="status" aria-live="polite">
          {contact.data?.success && (
            <Alert color="green" variant="light" title={t('licence.contactSuccess.title')}>
              {t('licence.contactSuccess.description')}
            </Alert>
          )}
          {contact.data && !contact.data.success && (
            <Alert color="red" variant="light" title={t('licence.contactFailure.title')}>
              {t('licence.contactFailure.description')}
            </Alert>
          )}
        </div>
        {contact.isError && <ApiErrorAlert error={contact.error} showServerMessage />}
      </Section>
    </Stack>
  );
}
