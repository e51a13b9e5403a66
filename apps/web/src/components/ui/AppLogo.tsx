import { useTranslation } from '../../lib/i18n';

/** The product mark: a shield inside a moat ring. Uses the primary colour, so brand themes tint it. */
export function AppLogo({ size = 40 }: { size?: number }) {
  const { t } = useTranslation();
  return (
    <svg
      role="img"
      aria-label={t('app.logoAlt')}
      width={size}
      height={size}
      viewBox="0 0 48 48"
      className="app-logo"
      focusable="false"
    >
      <circle cx="24" cy="24" r="22" fill="none" stroke="currentColor" strokeWidth="3" />
      <path d="M24 9l12 5v9c0 8-5.2 13.6-12 16-6.8-2.4-12-8-12-16v-9z" fill="currentColor" />
      <path d="M18.5 24l4 4 7-8" fill="none" stroke="var(--mantine-color-body)" strokeWidth="3" />
    </svg>
  );
}
