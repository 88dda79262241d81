// Moving between pages from inside one: a page is chosen by the URL's hash
// (App listens to it); a search to open the Atlas with waits here until
// the Atlas takes it.
export const nav = $state({
  atlasQuery: '',
  /** Set by a page holding unsaved work: what leaving it would lose ("" when nothing). */
  unsaved: '',
});

/** Opens the Atlas searching for q. */
export function openAtlas(q: string) {
  nav.atlasQuery = q;
  location.hash = 'atlas';
}

/** The search the Atlas was opened with ("" when none); it is taken once. */
export function takeAtlasQuery(): string {
  const q = nav.atlasQuery;
  nav.atlasQuery = '';
  return q;
}

/**
 * Guards a page's unsaved work while it is mounted (call it from the
 * component's script): nav.unsaved follows unsaved() (what leaving would
 * lose, "" when nothing), so moving to another page asks first (App), and
 * closing or reloading the tab asks too.
 */
export function guardUnsaved(unsaved: () => string) {
  $effect(() => {
    nav.unsaved = unsaved();
  });
  $effect(() => () => (nav.unsaved = ''));
  $effect(() => {
    const warn = (e: BeforeUnloadEvent) => {
      if (nav.unsaved) e.preventDefault();
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  });
}
