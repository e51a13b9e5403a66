import { ActionIcon } from '@mantine/core';
import {
  FLOATING_MENU_CLOSE_MS,
  FLOATING_MENU_HEIGHT_PX,
  FLOATING_MENU_OPEN_DELAY_MS,
} from '@moat/contracts/constants';
import { type CSSProperties, useCallback, useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from '../../lib/i18n';
import { ShellIcon } from './ShellIcons';

const PANEL_STYLE = {
  '--floating-menu-height': `${FLOATING_MENU_HEIGHT_PX}px`,
  '--floating-menu-close-ms': `${FLOATING_MENU_CLOSE_MS}ms`,
} as CSSProperties;

/**
 * The firewall-vendor brand's floating menu (SPEC §2.4, §4, §9): a panel embedding the vendor's
 * portal menu in an iframe, 690 px high. Opening mounts it and starts the animation 10 ms later;
 * closing animates for 550 ms, then removes it. The vendor's portal is outside this product, so
 * the frame holds an empty page.
 */
export function FloatingMenu() {
  const { t } = useTranslation();
  const panelId = useId();
  const [mounted, setMounted] = useState(false);
  const [expanded, setExpanded] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const open = () => {
    clearTimeout(timer.current);
    setMounted(true);
    timer.current = setTimeout(() => setExpanded(true), FLOATING_MENU_OPEN_DELAY_MS);
  };
  const close = useCallback(() => {
    clearTimeout(timer.current);
    setExpanded(false);
    timer.current = setTimeout(() => setMounted(false), FLOATING_MENU_CLOSE_MS);
  }, []);
  const isOpen = mounted && expanded;

  useEffect(() => {
    if (!mounted) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') close();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [mounted, close]);

  return (
    <>
      <ActionIcon
        variant={isOpen ? 'light' : 'subtle'}
        color="gray"
        size="lg"
        aria-label={isOpen ? t('shell.floatingMenu.close') : t('shell.floatingMenu.open')}
        aria-expanded={isOpen}
        aria-controls={mounted ? panelId : undefined}
        onClick={() => (isOpen ? close() : open())}
      >
        <ShellIcon name="grid" />
      </ActionIcon>
      {mounted && (
        <section
          id={panelId}
          className="floating-menu"
          data-open={expanded || undefined}
          style={PANEL_STYLE}
          aria-label={t('shell.floatingMenu.title')}
        >
          <iframe className="floating-menu__frame" src="about:blank" title={t('shell.floatingMenu.title')} />
        </section>
      )}
    </>
  );
}
