import { Alert, Button, Group, Modal, NativeSelect, Stack, Textarea, TextInput } from '@mantine/core';
import { DIALOG_WIDTH } from '@moat/contracts/constants';
import {
  EXCEPTION_COMMENT_MAX,
  EXCEPTION_KINDS,
  EXCEPTION_LISTS,
  EXCEPTION_SCOPES,
  type ExceptionKind,
  type ExceptionList,
  type ExceptionScope,
  normalizeExceptionValue,
} from '@moat/contracts/exceptions';
import { type FormEvent, useState } from 'react';
import { messageKeyOf } from '../../../lib/error-messages';
import { isApiError } from '../../../lib/http';
import { useTranslation } from '../../../lib/i18n';
import { useCreateException } from '../api/create-exception';
import { KIND_LABEL, LIST_LABEL, PLACEHOLDER, SCOPE_LABEL } from '../labels';
import { DEFAULT_KIND } from '../scopes';

/** Today as the date input writes it (yyyy-mm-dd, local time). */
function localDay(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The end of a chosen day in the admin's time zone, as the API takes it. */
export function endOfDayIso(day: string): string {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y!, (m ?? 1) - 1, d ?? 1, 23, 59, 59).toISOString();
}

/** Click-Time's entries name the sites and addresses of links. */
const CLICK_TIME_KINDS = ['domain', 'url'] as const;
/** DLP's entries name the people and domains outbound mail goes from or to. */
const DLP_KINDS = ['sender', 'domain'] as const;

/** Add an allow or block entry: its value checked as it is typed, with the form it is stored in. */
export function AddExceptionDialog({
  opened,
  scope,
  onClose,
  onAdded,
}: {
  opened: boolean;
  /** The page's scope, offered first. */
  scope: ExceptionScope;
  onClose: () => void;
  onAdded: (value: string) => void;
}) {
  const { t } = useTranslation();
  const create = useCreateException();
  const [list, setList] = useState<ExceptionList>('block');
  const [kind, setKind] = useState<ExceptionKind>(DEFAULT_KIND[scope]);
  const [entryScope, setEntryScope] = useState<ExceptionScope>(scope);
  const [value, setValue] = useState('');
  const [touched, setTouched] = useState(false);
  const [comment, setComment] = useState('');
  const [expires, setExpires] = useState('');

  const checked = normalizeExceptionValue(kind, value);
  const today = localDay(new Date());
  const expiresInvalid = expires !== '' && expires <= today;
  const reset = () => {
    setList('block');
    setKind(DEFAULT_KIND[scope]);
    setEntryScope(scope);
    setValue('');
    setTouched(false);
    setComment('');
    setExpires('');
    create.reset();
  };
  const close = () => {
    reset();
    onClose();
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setTouched(true);
    if (!checked.ok || expiresInvalid) return;
    create.mutate(
      {
        list,
        kind,
        scope: entryScope,
        value: checked.value,
        comment: comment.trim(),
        expires_at: expires ? endOfDayIso(expires) : null,
      },
      {
        onSuccess: (entry) => {
          reset();
          onAdded(entry.value);
        },
      },
    );
  };

  const serverError = create.error
    ? isApiError(create.error) && create.error.code === 'conflict'
      ? create.error.message
      : t(messageKeyOf(create.error))
    : null;

  return (
    <Modal
      opened={opened}
      onClose={close}
      title={t('exceptions.form.title')}
      size={DIALOG_WIDTH.small}
      centered
      closeButtonProps={{ 'aria-label': t('common.close') }}
    >
      <form noValidate onSubmit={submit}>
        <Stack gap="sm">
          <Group grow gap="sm" align="flex-start">
            <NativeSelect
              label={t('exceptions.form.list')}
              value={list}
              onChange={(e) => setList(e.currentTarget.value as ExceptionList)}
              data={EXCEPTION_LISTS.map((l) => ({ value: l, label: t(LIST_LABEL[l]) }))}
            />
            <NativeSelect
              label={t('exceptions.form.kind')}
              value={kind}
              onChange={(e) => setKind(e.currentTarget.value as ExceptionKind)}
              data={(scope === 'click_time'
                ? CLICK_TIME_KINDS
                : scope === 'dlp'
                  ? DLP_KINDS
                  : EXCEPTION_KINDS
              ).map((k) => ({
                value: k,
                label: t(KIND_LABEL[k]),
              }))}
            />
          </Group>
          <TextInput
            label={t('exceptions.form.value')}
            placeholder={t(PLACEHOLDER[kind])}
            value={value}
            onChange={(e) => setValue(e.currentTarget.value)}
            onBlur={() => setTouched(value !== '' || touched)}
            error={touched && !checked.ok ? checked.message : undefined}
            description={
              checked.ok && checked.value !== value.trim()
                ? t('exceptions.form.stored', { value: checked.value })
                : undefined
            }
            required
            data-autofocus
            spellCheck={false}
            autoCapitalize="off"
          />
          <NativeSelect
            label={t('exceptions.form.scope')}
            value={entryScope}
            onChange={(e) => setEntryScope(e.currentTarget.value as ExceptionScope)}
            data={EXCEPTION_SCOPES.map((s) => ({ value: s, label: t(SCOPE_LABEL[s]) }))}
          />
          <Textarea
            label={t('exceptions.form.comment')}
            description={t('exceptions.form.commentHint')}
            value={comment}
            onChange={(e) => setComment(e.currentTarget.value)}
            maxLength={EXCEPTION_COMMENT_MAX}
            rows={3}
          />
          <TextInput
            type="date"
            label={t('exceptions.form.expires')}
            description={t('exceptions.form.expiresHint')}
            value={expires}
            min={today}
            onChange={(e) => setExpires(e.currentTarget.value)}
            error={expiresInvalid ? t('exceptions.form.expiresPast') : undefined}
          />
          {list === 'allow' && (
            <Alert color="yellow" variant="light">
              {t(scope === 'click_time' ? 'exceptions.clickTimeNote' : 'exceptions.authNote')}
            </Alert>
          )}
          {serverError && (
            <Alert color="red" variant="light" role="alert">
              {serverError}
            </Alert>
          )}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              {t('exceptions.form.cancel')}
            </Button>
            <Button type="submit" loading={create.isPending}>
              {t('exceptions.form.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
