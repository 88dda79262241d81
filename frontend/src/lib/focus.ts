// Giving the keyboard focus back after the page changed under it.
import { tick } from 'svelte';

/**
 * Once the page has redrawn, focuses what find returns when the focus was
 * lost (it is on the page body: the focused control went away, such as a
 * confirmation that closed). A focus the person moved elsewhere is left
 * alone, and so is a find that returns nothing.
 */
export async function focusAfterRedraw(find: () => HTMLElement | null | undefined): Promise<void> {
  await tick();
  const at = document.activeElement;
  if (at && at !== document.body && at.isConnected) return;
  find()?.focus();
}

/**
 * Keeps Tab inside box (a dialog, a question): from its last control Tab
 * goes to its first and Shift+Tab the other way, and a focus outside it
 * comes back in. Call it from the box's (or the window's) keydown.
 */
export function keepTabInside(e: KeyboardEvent, box: HTMLElement): void {
  if (e.key !== 'Tab') return;
  const stops = [...box.querySelectorAll<HTMLElement>('button, a[href], input, select, textarea, summary')].filter(
    (el) => !el.hasAttribute('disabled'),
  );
  const [first, last] = [stops[0], stops[stops.length - 1]];
  const at = document.activeElement;
  if (!first) return;
  if (e.shiftKey && (at === first || !box.contains(at))) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && (at === last || !box.contains(at))) {
    e.preventDefault();
    first.focus();
  }
}
