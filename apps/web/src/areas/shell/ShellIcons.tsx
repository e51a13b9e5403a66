import { OutlineIcon } from '../../components/ui/OutlineIcon';

/** Outline icons (24 × 24, current colour) of the top bar's controls; decorative. */
const PATHS = {
  help: 'M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18M9.5 9a2.5 2.5 0 1 1 3.5 2.3c-.6.3-1 .9-1 1.7M12 17v.01',
  sun: 'M12 8a4 4 0 1 0 0 8 4 4 0 0 0 0-8M12 2v2M12 20v2M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M2 12h2M20 12h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4',
  moon: 'M20 14.5A8 8 0 1 1 9.5 4 6.5 6.5 0 0 0 20 14.5',
  grid: 'M5 5h.01M12 5h.01M19 5h.01M5 12h.01M12 12h.01M19 12h.01M5 19h.01M12 19h.01M19 19h.01',
} as const;

export type ShellIconName = keyof typeof PATHS;

export function ShellIcon({ name, size = 18 }: { name: ShellIconName; size?: number }) {
  return <OutlineIcon d={PATHS[name]} size={size} strokeWidth={name === 'grid' ? 3 : 1.75} />;
}
