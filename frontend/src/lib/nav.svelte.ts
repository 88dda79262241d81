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
