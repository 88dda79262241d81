// Keyboard focus in the Atlas's list of rows (each row an element with
// data-testid="atlas-row" and data-id, its focus target [data-row-focus]).
import { tick } from 'svelte';

/**
 * Where the focus goes back after a row's action (or its panel or drawer
 * closing): the same button of the same row, else that row, else the row
 * now in its place, so a keyboard user is not sent back to the top of the
 * page. remember notes the row and the button (by test id); refocus goes
 * back once the list is redrawn.
 */
export function rowFocus() {
  let returnTo: { id: string; testid: string; index: number } | null = null;
  const rows = () => [...document.querySelectorAll<HTMLElement>('[data-testid="atlas-row"]')];
  return {
    remember(id: string, testid: string) {
      returnTo = { id, testid, index: rows().findIndex((r) => r.dataset.id === id) };
    },
    async refocus() {
      const to = returnTo;
      if (!to) return;
      await tick();
      const row = document.querySelector<HTMLElement>(`[data-testid="atlas-row"][data-id="${CSS.escape(to.id)}"]`);
      const all = rows();
      const target =
        row?.querySelector<HTMLElement>(`[data-testid="${to.testid}"]`) ??
        row?.querySelector<HTMLElement>('[data-row-focus]') ??
        all[Math.min(Math.max(to.index, 0), all.length - 1)]?.querySelector<HTMLElement>('[data-row-focus]');
      target?.focus({ preventScroll: true }); // the list stays where the user left it,
      target?.scrollIntoView({ block: 'nearest' }); // unless the row is under the toast (scroll-padding)
    },
  };
}

/** ↑ and ↓ move the focus between rows. */
export function keyNav(e: KeyboardEvent) {
  if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
  const rows = [...document.querySelectorAll<HTMLElement>('[data-row-focus]')];
  const i = rows.indexOf(document.activeElement as HTMLElement);
  const next = rows[Math.max(0, Math.min(rows.length - 1, i + (e.key === 'ArrowDown' ? 1 : -1)))];
  if (next) {
    e.preventDefault();
    next.focus();
  }
}
