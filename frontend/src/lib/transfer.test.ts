import { describe, expect, it } from 'vitest';
import { importOutcomeUnknown, importText, importedAnything, lostImportText, sizeText } from './transfer';
import { ApiError } from './api';
import type { ImportReport } from './types';

const report = (r: Partial<ImportReport>): ImportReport => ({
  lines: 0, memories: 0, imported: 0, skipped: 0, reembed: 0, files: 0, files_skipped: [], ...r,
});

describe('sizeText', () => {
  it.each([
    [0, '1 KB'],
    [499, '1 KB'],
    [12_400, '12 KB'],
    [999_999, '1000 KB'],
    [3_400_000, '3.4 MB'],
  ])('%d bytes is %s', (bytes, text) => expect(sizeText(bytes)).toBe(text));
});

describe('importText', () => {
  it.each([
    [report({ memories: 3, imported: 3 }), 'Imported 3 of 3 memories. The snapshot of 10:31 holds HyAtlas as it was before: Undo the import restores it.'],
    [
      report({ memories: 5, imported: 4, skipped: 1, files: 2, reembed: 4 }),
      'Imported 4 of 5 memories; 1 was here already and is left as it is; 2 workspace files written. 4 memories get a vector in the background. The snapshot of 10:31 holds HyAtlas as it was before: Undo the import restores it.',
    ],
    [
      report({ memories: 2, imported: 1, skipped: 1, files_skipped: ['a/SOUL.md', 'b/SOUL.md', 'c/USER.md', 'd/MEMORY.md'] }),
      "Imported 1 of 2 memories; 1 was here already and is left as it is; kept your own a/SOUL.md, b/SOUL.md, c/USER.md and 1 more: the file's differ. The snapshot of 10:31 holds HyAtlas as it was before: Undo the import restores it.",
    ],
    [report({ memories: 1, skipped: 1 }), 'Nothing new: the 1 memory in the file was here already.'],
    [
      report({ memories: 1, skipped: 1, graph: { nodes: 2, relations: 1, links: 0 } }),
      'The 1 memory in the file was here already; the knowledge graph gained 2 entities, 1 relation and 0 links. The snapshot of 10:31 holds HyAtlas as it was before: Undo the import restores it.',
    ],
    [
      report({ memories: 6, imported: 6, topics: 2 }),
      'Imported 6 of 6 memories; the consolidation topics of 2 owners came along (not sent to the model again). The snapshot of 10:31 holds HyAtlas as it was before: Undo the import restores it.',
    ],
    [report({ memories: 2, skipped: 2, files_skipped: ['a/SOUL.md'] }), "Nothing new: the 2 memories in the file were here already (kept your own a/SOUL.md: the file's differs)."],
  ])('%o', (r, text) => expect(importText(r, '10:31')).toBe(text));

  it('counts files, the graph and topics as a change', () => {
    expect(importedAnything(report({ files: 1 }))).toBe(true);
    expect(importedAnything(report({ graph: { nodes: 0, relations: 1, links: 0 } }))).toBe(true);
    expect(importedAnything(report({ skipped: 9, topics: 1 }))).toBe(true);
    expect(importedAnything(report({ skipped: 9 }))).toBe(false);
  });
});

describe('importOutcomeUnknown', () => {
  it.each([
    ['no answer at all', new ApiError(0, 'unreachable', 'HyAtlas did not answer'), true],
    ['an answer that could not be read', new ApiError(200, 'bad_response', 'invalid JSON'), true],
    ['an error that is not an API answer', new TypeError('Failed to fetch'), true],
    ['a refused file', new ApiError(422, 'invalid', 'line 3: unknown layer'), false],
    ['a full disk', new ApiError(503, 'unavailable', 'the disk is full'), false],
    ['a signed-out page', new ApiError(401, 'http_401', 'signed out'), false],
  ])('%s: %s', (_, err, unknown) => expect(importOutcomeUnknown(err)).toBe(unknown));
});

describe('lostImportText', () => {
  it('says the import may have gone through and that the snapshot is kept', () => {
    expect(lostImportText(new ApiError(0, 'unreachable', 'HyAtlas did not answer'), '10:31')).toBe(
      "The import's answer was lost (HyAtlas did not answer), so it may have gone through. The snapshot of 10:31, made just before it, is kept: restore it from the list above to undo the import.",
    );
  });
});
