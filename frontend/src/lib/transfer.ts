// Words for what an export or an import came to (the Snapshots page's
// Export and import). Pure: tested in transfer.test.ts.
import type { ImportReport } from './types';
import { plural } from './format';
import { ApiError } from './api';

/** A file size a person reads: 12 KB, 3.4 MB (never 0 KB). */
export function sizeText(bytes: number): string {
  return bytes < 1e6 ? `${Math.max(1, Math.round(bytes / 1e3))} KB` : `${(bytes / 1e6).toFixed(1)} MB`;
}

const graphAdded = (r: ImportReport) => (r.graph?.nodes ?? 0) + (r.graph?.relations ?? 0) + (r.graph?.links ?? 0);

/** Whether an import changed anything (memories, files, the graph, topics): nothing new means no undo is needed. */
export const importedAnything = (r: ImportReport) => r.imported > 0 || r.files > 0 || graphAdded(r) > 0 || (r.topics ?? 0) > 0;

/**
 * Whether an import that failed may still have gone through: its answer
 * was lost (HyAtlas stopped, the connection broke) or could not be read.
 * A refusal HyAtlas answered (4xx, 5xx) changed nothing, since an import
 * is all or nothing.
 */
export const importOutcomeUnknown = (err: unknown) =>
  !(err instanceof ApiError) || err.status === 0 || (err.status >= 200 && err.status < 300);

/**
 * What the page says when an import's answer was lost: the snapshot made
 * just before it (before names it by when it was made) is kept, since the
 * import may have gone through and that snapshot is the only way back.
 */
export function lostImportText(err: unknown, before: string): string {
  const why = err instanceof Error ? err.message : String(err);
  return `The import's answer was lost (${why}), so it may have gone through. The snapshot of ${before}, made just before it, is kept: restore it from the list above to undo the import.`;
}

/**
 * What an import did, in words; before names the snapshot made just
 * before it (by when it was made), which undoes it.
 */
export function importText(r: ImportReport, before: string): string {
  if (!importedAnything(r)) {
    const kept = r.files_skipped.length ? ` (${keptText(r.files_skipped)})` : '';
    return `Nothing new: the ${plural(r.memories, 'memory', 'memories')} in the file ${r.memories === 1 ? 'was' : 'were'} here already${kept}.`;
  }
  const parts = r.imported
    ? [`Imported ${r.imported} of ${plural(r.memories, 'memory', 'memories')}`]
    : [`The ${plural(r.memories, 'memory', 'memories')} in the file ${r.memories === 1 ? 'was' : 'were'} here already`];
  if (r.skipped && r.imported) parts.push(`${r.skipped} ${r.skipped === 1 ? 'was' : 'were'} here already and ${r.skipped === 1 ? 'is' : 'are'} left as ${r.skipped === 1 ? 'it is' : 'they are'}`);
  if (r.files) parts.push(`${plural(r.files, 'workspace file', 'workspace files')} written`);
  if (graphAdded(r) && r.graph) {
    const g = r.graph;
    parts.push(`the knowledge graph gained ${plural(g.nodes, 'entity', 'entities')}, ${plural(g.relations, 'relation', 'relations')} and ${plural(g.links, 'link', 'links')}`);
  }
  if (r.topics) parts.push(`the consolidation topics of ${plural(r.topics, 'owner', 'owners')} came along (not sent to the model again)`);
  if (r.files_skipped.length) parts.push(keptText(r.files_skipped));
  let text = parts.join('; ') + '.';
  if (r.reembed) text += ` ${plural(r.reembed, 'memory gets', 'memories get')} a vector in the background.`;
  return `${text} The snapshot of ${before} holds HyAtlas as it was before: Undo the import restores it.`;
}

function keptText(files: string[]): string {
  const shown = files.slice(0, 3).join(', ') + (files.length > 3 ? ` and ${files.length - 3} more` : '');
  return `kept your own ${shown}: the file's ${files.length === 1 ? 'differs' : 'differ'}`;
}
