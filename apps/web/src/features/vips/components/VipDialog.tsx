import {
  Alert,
  Autocomplete,
  Button,
  CloseButton,
  Group,
  Modal,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { DIALOG_WIDTH } from '@moat/contracts/constants';
import type { FieldError } from '@moat/contracts/error-codes';
import { checkVip, VIP_EMAILS_MAX, VIP_NAME_MAX, type Vip } from '@moat/contracts/vips';
import { type FormEvent, useState } from 'react';
import { messageKeyOf } from '../../../lib/error-messages';
import { isApiError } from '../../../lib/http';
import { useTranslation } from '../../../lib/i18n';
import { usePeopleNamed } from '../api/find-people';
import { useSaveVip } from '../api/save-vip';

/** The message of a field among checkVip's or the server's (`body.` prefixed) errors. */
function messageOf(errors: readonly FieldError[], field: string): string | undefined {
  return errors.find((e) => e.field === field || e.field === `body.${field}`)?.message;
}

/**
 * Add a protected person, or change one (`vip`): a name and up to VIP_EMAILS_MAX real addresses,
 * checked as they are typed with the server's own rules once the admin has tried to save or left
 * a field; a name already on the list is said on the name field.
 */
export function VipDialog({
  opened,
  vip,
  onClose,
  onSaved,
}: {
  opened: boolean;
  /** The person to change; null to add one. */
  vip: Vip | null;
  onClose: () => void;
  onSaved: (saved: Vip) => void;
}) {
  const { t } = useTranslation();
  const save = useSaveVip();
  const [name, setName] = useState(vip?.name ?? '');
  const [emails, setEmails] = useState<string[]>(vip && vip.emails.length > 0 ? vip.emails : ['']);
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [tried, setTried] = useState(false);
  // Adding: the organisation's users whose name is being typed, offered with their address.
  const [typed] = useDebouncedValue(name.trim(), 250);
  const people = usePeopleNamed(typed, vip === null).data ?? [];
  const offered = [...new Set(people.map((p) => p.name))];

  const checked = checkVip({ name, emails });
  const local = checked.ok ? [] : checked.errors;
  const server = save.error && isApiError(save.error) ? (save.error.details ?? []) : [];
  const conflict =
    save.error && isApiError(save.error) && save.error.code === 'conflict' ? save.error.message : null;
  const shown = (field: string) =>
    tried || touched[field]
      ? (messageOf(local, field) ?? messageOf(server, field))
      : messageOf(server, field);
  const nameError = shown('name') ?? conflict ?? undefined;
  const otherError =
    save.error && !conflict && server.length === 0 ? t(messageKeyOf(save.error)) : (shown('emails') ?? null);

  const close = () => {
    save.reset();
    onClose();
  };
  /** A user picked from the offer: their address goes in the first empty place, if it is not there. */
  const pick = (picked: string) => {
    const person = people.find((p) => p.name === picked);
    if (!person) return;
    setEmails((list) => {
      if (list.some((e) => e.trim().toLowerCase() === person.email)) return list;
      const empty = list.findIndex((e) => e.trim() === '');
      if (empty !== -1) return list.map((e, j) => (j === empty ? person.email : e));
      return list.length < VIP_EMAILS_MAX ? [...list, person.email] : list;
    });
  };
  const setEmail = (i: number, value: string) => {
    save.reset();
    setEmails((list) => list.map((e, j) => (j === i ? value : e)));
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setTried(true);
    if (!checked.ok) return;
    save.mutate(
      { id: vip?.id ?? null, body: { name: checked.name, emails: checked.emails } },
      { onSuccess: (saved) => onSaved(saved) },
    );
  };

  return (
    <Modal
      opened={opened}
      onClose={close}
      title={vip ? t('vips.form.editTitle') : t('vips.form.addTitle')}
      size={DIALOG_WIDTH.small}
      centered
      closeButtonProps={{ 'aria-label': t('common.close') }}
    >
      <form noValidate onSubmit={submit}>
        <Stack gap="sm">
          <Autocomplete
            label={t('vips.form.name')}
            description={vip ? t('vips.form.nameHint') : t('vips.form.nameHintUsers')}
            placeholder={t('vips.form.namePlaceholder')}
            value={name}
            onChange={(value) => {
              save.reset();
              setName(value);
            }}
            data={vip ? [] : offered}
            onOptionSubmit={pick}
            filter={({ options }) => options}
            // Inside the dialog, so the offer is not hidden from assistive technology with the page behind it.
            comboboxProps={{ withinPortal: false }}
            onBlur={() => setTouched((was) => ({ ...was, name: name !== '' || was.name === true }))}
            error={nameError}
            maxLength={VIP_NAME_MAX + 20}
            required
            data-autofocus
            autoComplete="off"
          />
          <Stack gap={6} role="group" aria-labelledby="vip-emails-label">
            <Text size="sm" fw={500} id="vip-emails-label">
              {t('vips.form.emails')}
            </Text>
            <Text size="xs" c="dimmed">
              {t('vips.form.emailsHint', { max: VIP_EMAILS_MAX })}
            </Text>
            {emails.map((email, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the rows are positions; the value is what is typed
              <Group key={i} gap="xs" align="flex-start" wrap="nowrap">
                <TextInput
                  aria-label={t('vips.form.emailN', { n: i + 1 })}
                  placeholder="name@example.com"
                  type="email"
                  value={email}
                  onChange={(e) => setEmail(i, e.currentTarget.value)}
                  onBlur={() => setTouched((was) => ({ ...was, [`emails.${i}`]: email !== '' }))}
                  error={shown(`emails.${i}`)}
                  style={{ flex: 1 }}
                  spellCheck={false}
                  autoCapitalize="off"
                  autoComplete="off"
                />
                {emails.length > 1 && (
                  <CloseButton
                    size="lg"
                    mt={2}
                    aria-label={t('vips.form.removeEmail', { n: i + 1 })}
                    onClick={() => {
                      save.reset();
                      setEmails((list) => list.filter((_, j) => j !== i));
                    }}
                  />
                )}
              </Group>
            ))}
            {emails.length < VIP_EMAILS_MAX && (
              <Group>
                <Button size="xs" variant="subtle" onClick={() => setEmails((list) => [...list, ''])}>
                  {t('vips.form.addEmail')}
                </Button>
              </Group>
            )}
          </Stack>
          {otherError && (
            <Alert color="red" variant="light" role="alert">
              {otherError}
            </Alert>
          )}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              {t('vips.form.cancel')}
            </Button>
            <Button type="submit" loading={save.isPending}>
              {vip ? t('vips.form.save') : t('vips.form.add')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
