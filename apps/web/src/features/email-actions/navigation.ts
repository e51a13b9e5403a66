/**
 * Leaves the public page for another route of the app (e.g. the error 410 page): the hash
 * changes, and the boot script (`src/boot.ts`) loads the console's bundle for it.
 */
export function goTo(route: string): void {
  window.location.replace(`#${route}`);
}
