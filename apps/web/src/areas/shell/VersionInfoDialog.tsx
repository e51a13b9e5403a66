import {
  Alert,
  Button,
  Center,
  Loader,
  Modal,
  Stack,
  Table,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import type { EnvironmentComponents } from '@moat/contracts/console';
import { DIALOG_WIDTH, VERSION_DIALOG_HEIGHT_PX } from '@moat/contracts/constants';
import { useQuery } from '@tanstack/react-query';
import { environmentComponentsQueryOptions } from '../../lib/console-data/get-environment-components';
import { versionQueryOptions } from '../../lib/console-data/get-version';
import { useTranslation } from '../../lib/i18n';
import './shell.css';

type Component = EnvironmentComponents['services'][number];

function ComponentTable({ caption, rows }: { caption: string; rows: Component[] }) {
  const { t } = useTranslation();
  if (rows.length === 0) return null;
  return (
    <Table striped withTableBorder fz="sm" verticalSpacing={4}>
      <Table.Caption>{caption}</Table.Caption>
      <Table.Thead>
        <Table.Tr>
          <Table.Th scope="col">{t('shell.versionInfo.name')}</Table.Th>
          <Table.Th scope="col">{t('shell.versionInfo.version')}</Table.Th>
          <Table.Th scope="col">{t('shell.versionInfo.status')}</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((row) => (
          <Table.Tr key={row.name}>
            <Table.Th scope="row" fw={500}>
              {row.name}
            </Table.Th>
            <Table.Td>{row.version}</Table.Td>
            <Table.Td>
              {row.status === 'on' ? t('shell.versionInfo.on') : t('shell.versionInfo.off')}
              {row.detail ? ` (${row.detail})` : ''}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/**
 * SPEC §2.4 "Version info": a 620 × 250 px dialog that a click on the backdrop does not close
 * (the Close button and Escape do). The web and server versions, then the environment's services
 * and engines with their version and whether they are on.
 */
export function VersionInfoDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const version = useQuery({ ...versionQueryOptions(), enabled: opened });
  const components = useQuery({ ...environmentComponentsQueryOptions(), enabled: opened });
  const failed = version.isError || components.isError;
  const loading = version.isPending || components.isPending;

  return (
    <Modal.Root
      opened={opened}
      onClose={onClose}
      size={DIALOG_WIDTH.version}
      closeOnClickOutside={false}
      centered
    >
      <Modal.Overlay />
      <Modal.Content
        h={VERSION_DIALOG_HEIGHT_PX}
        style={{ display: 'flex', flexDirection: 'column' }}
        aria-labelledby="version-info-title"
      >
        <Modal.Header role="presentation">
          <Modal.Title>
            <Title order={2} size="h4" id="version-info-title" component="span">
              {t('shell.versionInfo.title')}
            </Title>
          </Modal.Title>
        </Modal.Header>
        <Modal.Body style={{ flex: 1, overflowY: 'auto' }}>
          {failed && (
            <Alert color="red" variant="light">
              {t('shell.versionInfo.error')}
            </Alert>
          )}
          {!failed && loading && (
            <Center role="status" mih={80}>
              <Loader size="sm" />
              <VisuallyHidden>{t('shell.versionInfo.loading')}</VisuallyHidden>
            </Center>
          )}
          {!failed && version.data && components.data && (
            <Stack gap="sm">
              <dl className="version-info__list">
                <dt>{t('shell.versionInfo.web')}</dt>
                <dd>
                  <Text component="span" ff="monospace" size="sm">
                    {version.data.version_info.ui2_version}
                  </Text>
                </dd>
                <dt>{t('shell.versionInfo.server')}</dt>
                <dd>
                  <Text component="span" ff="monospace" size="sm">
                    {version.data.version_info.flask_version}
                  </Text>
                </dd>
              </dl>
              <ComponentTable caption={t('shell.versionInfo.services')} rows={components.data.services} />
              <ComponentTable caption={t('shell.versionInfo.engines')} rows={components.data.engines} />
            </Stack>
          )}
        </Modal.Body>
        <div className="version-info__footer">
          <Button onClick={onClose} data-autofocus>
            {t('common.close')}
          </Button>
        </div>
      </Modal.Content>
    </Modal.Root>
  );
}
