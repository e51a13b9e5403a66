import type { CurrentUser } from '@moat/contracts/current-user';

/**
 * The shell's state layer (SPEC §4 "Licence banner", "Banners", "Version check", "Parent portal
 * message"): rendered once by ShellLayout above the page outlet.
 */
export function ShellStatus(_props: { user: CurrentUser }) {
  return null;
}

/** SPEC §4 "Navbar label": rendered by ShellLayout under the logo of the side menu. */
export function NavbarLabel(_props: { user: CurrentUser }) {
  return null;
}
