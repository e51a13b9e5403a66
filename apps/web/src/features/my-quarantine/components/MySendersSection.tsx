import {
  Alert,
  Badge,
  Button,
  Center,
  Group,
  Loader,
  NativeSelect,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import {
  MY_SENDER_LISTS,
  type MySender,
  type MySenderList,
  normalizeMySender,
} from '@moat/contracts/my-senders';
import { type FormEvent, useState } from 'react';
import { DateText } from '../../../components/list/ListParts';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { Breakable } from '../../../components/ui/Breakable';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog';
import { FitTable } from '../../../components/ui/FitTable';
import { Section } from '../../../components/ui/Section';
import { StatusNotice } from '../../../components/ui/StatusNotice';
import { isApiError } from '../../../lib/http';
import type { TranslationKey } from '../../../lib/i18n';
import { useTranslation } from '../../../lib/i18n';
import { useAddMySender, useDeleteMySender, useMySenders } from '../api/my-senders';

const LIST_LABEL: Record<MySenderList, TranslationKey> = {
  block: 'myQuarantine.senders.lists.block',
  allow: 'myQuarantine.senders.lists.allow',
};
const LIST_BADGE: Record<MySenderList, TranslationKey> = {
  block: 'myQuarantine.senders.badges.block',
  allow: 'myQuarantine.senders.badges.allow',
};
const ADDED: Record<MySenderList, TranslationKey> = {
  block: 'myQuarantine.senders.addedBlock',
  allow: 'myQuarantine.senders.addedAllow',
};

/** The field's own error from the API (`body.value`), if that is what the answer is about. */
function valueErrorOf(error: unknown): string | null {
  if (!isApiError(error)) return null;
  return error.details?.find((d) => d.field === 'body.value')?.message ?? null;
}

/** "<value> is now on your block list": what an add says, here or from a held message. */
export function useAddedText() {
  const { t } = useTranslation();
  return (entry: MySender) => t(ADDED[entry.list], { value: entry.value });
}

/** Add an address or domain: checked as on the server; the server's word on the field, shown once. */
function AddSenderForm({ onAdded }: { onAdded: (entry: MySender) => void }) {
  const { t } = useTranslation();
  const add = useAddMySender();
  const [list, setList] = useState<MySenderList>('block');
  const [value, setValue] = useState('');
  const [touched, setTouched] = useState(false);
  const checked = normalizeMySender(value);

  const fieldError =
    (touched && !checked.ok ? checked.message : null) ?? (add.error ? valueErrorOf(add.error) : null);
  // Any other failure (the limit, the network) is said once, below the form.
  const otherError = add.error && !valueErrorOf(add.error) ? add.error : null;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setTouched(true);
    if (!checked.ok) return;
    add.mutate(
      { list, value: checked.value },
      {
        onSuccess: (entry) => {
          setValue('');
          setTouched(false);
          onAdded(entry);
        },
      },
    );
  };

  return (
    <form noValidate onSubmit={submit} aria-label={t('myQuarantine.senders.formLabel')}>
      <Stack gap="xs">
        <Group gap="sm" align="flex-start" wrap="wrap">
          <NativeSelect
            label={t('myQuarantine.senders.list')}
            value={list}
            onChange={(e) => {
              setList(e.currentTarget.value as MySenderList);
              add.reset();
            }}
            data={MY_SENDER_LISTS.map((l) => ({ value: l, label: t(LIST_LABEL[l]) }))}
          />
          <TextInput
            label={t('myQuarantine.senders.value')}
            placeholder={t('myQuarantine.senders.placeholder')}
            value={value}
            onChange={(e) => {
              setValue(e.currentTarget.value);
              setTouched(false);
              add.reset();
            }}
            error={fieldError ?? undefined}
            required
            spellCheck={false}
            autoCapitalize="off"
            style={{ flex: '1 1 16rem' }}
          />
          <Button type="submit" mt={25} loading={add.isPending}>
            {t('myQuarantine.senders.add')}
          </Button>
        </Group>
        {otherError &&
          (isApiError(otherError) && otherError.code === 'conflict' ? (
            <Alert color="red" variant="light" role="alert">
              {otherError.message}
            </Alert>
          ) : (
            <ApiErrorAlert error={otherError} />
          ))}
      </Stack>
    </form>
  );
}

/**
 * The user's own allowed and blocked senders (issue 12, SPEC §6): for their mail only; the
 * organisation's block list, malware and phishing always win over it.
 */
export function MySendersSection() {
  const { t } = useTranslation();
  const senders = useMySenders();
  const remove = useDeleteMySender();
  const addedText = useAddedText();
  const [status, setStatus] = useState<string | null>(null);
  const [removing, setRemoving] = useState<MySender | null>(null);
  const items = senders.data?.items ?? [];

  const close = () => {
    setRemoving(null);
    remove.reset();
  };
  const confirmRemove = () => {
    if (!removing) return;
    remove.mutate(removing.id, {
      onSuccess: () => {
        setStatus(t('myQuarantine.senders.removed', { value: removing.value }));
        close();
      },
    });
  };

  return (
    <Section id="my-senders-title" title={t('myQuarantine.senders.title')}>
      <Text size="sm">{t('myQuarantine.senders.intro')}</Text>
      <StatusNotice message={status} onClose={() => setStatus(null)} />
      <AddSenderForm onAdded={(entry) => setStatus(addedText(entry))} />
      {senders.isPending ? (
        <Center py="md" role="status">
          <Loader size="sm" aria-label={t('app.loading')} />
        </Center>
      ) : senders.isError ? (
        <ApiErrorAlert error={senders.error} />
      ) : items.length === 0 ? (
        <Text size="sm" c="dimmed">
          {t('myQuarantine.senders.empty')}
        </Text>
      ) : (
        <>
          <Text size="xs" c="dimmed">
            {t('myQuarantine.senders.count', { total: senders.data.total, max: senders.data.max })}
          </Text>
          <FitTable
            caption={t('myQuarantine.senders.caption')}
            rows={items}
            rowKey={(entry) => entry.id}
            columns={[
              {
                key: 'sender',
                label: t('myQuarantine.senders.columns.sender'),
                cell: (entry) => (
                  <Text size="sm">
                    <Breakable text={entry.value} />
                  </Text>
                ),
              },
              {
                key: 'list',
                label: t('myQuarantine.senders.columns.list'),
                width: '7rem',
                cell: (entry) => (
                  <Badge variant="light" color={entry.list === 'block' ? 'red' : 'green'}>
                    {t(LIST_BADGE[entry.list])}
                  </Badge>
                ),
              },
              {
                key: 'added',
                label: t('myQuarantine.senders.columns.added'),
                width: '11rem',
                cell: (entry) => <DateText iso={entry.created_at} />,
              },
              {
                key: 'actions',
                label: t('quarantine.list.actions'),
                width: '7rem',
                cell: (entry) => (
                  <Button
                    size="xs"
                    variant="subtle"
                    onClick={() => setRemoving(entry)}
                    aria-label={t('myQuarantine.senders.removeOf', { value: entry.value })}
                  >
                    {t('myQuarantine.senders.remove')}
                  </Button>
                ),
              },
            ]}
          />
        </>
      )}
      <ConfirmDialog
        opened={removing !== null}
        title={t('myQuarantine.senders.confirmTitle')}
        confirmLabel={t('myQuarantine.senders.remove')}
        confirmColor="red.9"
        pending={remove.isPending}
        onConfirm={confirmRemove}
        onClose={close}
      >
        <Stack gap="sm">
          <Text>{t('myQuarantine.senders.confirmText', { value: removing?.value ?? '' })}</Text>
          {remove.isError && <ApiErrorAlert error={remove.error} />}
        </Stack>
      </ConfirmDialog>
    </Section>
  );
}

/** From a held message's preview: block its sender, or always allow it, for the user's own mail. */
export function SenderActions({ sender, onDone }: { sender: string; onDone: (text: string) => void }) {
  const { t } = useTranslation();
  const add = useAddMySender();
  const addedText = useAddedText();
  const put = (list: MySenderList) =>
    add.mutate({ list, value: sender }, { onSuccess: (entry) => onDone(addedText(entry)) });
  return (
    <Stack gap="xs">
      <Text size="sm">{t('myQuarantine.senders.fromPreview', { sender })}</Text>
      <Group gap="sm">
        <Button size="xs" variant="light" onClick={() => put('block')} disabled={add.isPending}>
          {t('myQuarantine.senders.blockSender')}
        </Button>
        <Button size="xs" variant="light" onClick={() => put('allow')} disabled={add.isPending}>
          {t('myQuarantine.senders.allowSender')}
        </Button>
      </Group>
      {add.isError && <ApiErrorAlert error={add.error} showServerMessage />}
    </Stack>
  );
}
