import { Alert, Anchor, Stack, Title } from '@mantine/core';
import { Link } from 'react-router';

/** A sign-in area page that only says something: a title, a success or error notice and a link on. */
export function AuthNotice({
  title,
  message,
  tone,
  link,
}: {
  title: string;
  message: string;
  tone: 'success' | 'error';
  link: { to: string; label: string };
}) {
  return (
    <Stack gap="md">
      <Title order={1} size="h2">
        {title}
      </Title>
      <Alert
        color={tone === 'success' ? 'green' : 'red'}
        variant="light"
        role={tone === 'success' ? 'status' : 'alert'}
      >
        {message}
      </Alert>
      <Anchor component={Link} to={link.to} size="sm">
        {link.label}
      </Anchor>
    </Stack>
  );
}
