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
