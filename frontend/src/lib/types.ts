/** Wire ids of the eight memory layers, in order L1..L8. */
export type LayerId =
  | 'l1_profile'
  | 'l2_raw'
  | 'l3_fact'
  | 'l4_summary'
  | 'l5_knowledge'
  | 'l6_schema'
  | 'l7_intention'
  | 'l8_entity';

/** LLM states the server reports; unknown future values are passed through. */
export type LlmState = 'ok' | 'unconfigured' | 'awaiting_key' | 'unused' | (string & {});

export interface Embedder {
  id: string;
  name: string;
  dims: number;
  semantic: boolean;
}

/** Re-embedding after a change of embedder (running: in progress). */
export interface Reembed {
  running: boolean;
  embedder?: string;
  done: number;
  total: number;
  error?: string;
}

/** The part of GET /api/v1/status the UI uses (the server may send more). */
export interface Status {
  status: string;
  version: string;
  /** Entities and relations held now (the Mind Palace reads the graph again when they change). */
  graph_nodes: number;
  graph_edges: number;
  /** Moves whenever anything stored changed (an agent's edit too): live views read again. */
  changes?: number;
  mode: string;
  mode_detail: string;
  llm: LlmState;
  llm_model: string;
  llm_base: string;
  uses_llm: boolean;
  writes: number;
  searches: number;
  total: number;
  retired: number;
  unextracted: number;
  /** "ok", or "degraded: " and the last extraction error until one succeeds. */
  write_pipeline: string;
  /** "ok", or why nothing can be stored now (a full disk, a read-only data folder). */
  storage: string;
  /** Where agents reach the API (http://host:port); "" when unknown. */
  address: string;
  /** The consolidation pass running now: done of total topics (total 0 while it finds them). */
  consolidating?: { running: boolean; done: number; total: number };
  vdb_points: number;
  layers: Record<LayerId, number>;
  embedder: Embedder;
  reembed?: Reembed;
  data_dir: string;
  /** Seconds since the server started. */
  uptime: number;
}

/** One row of GET /api/v1/list. */
export interface ListItem {
  memory_id: string;
  content: string;
  layer: LayerId;
  user_id: string;
  agent_id: string;
  session_id: string;
  ts: string;
  category: string;
  strength: number;
  event_at?: string;
  invalid_at?: string;
  superseded_by?: string;
  superseded_how?: string;
  drop_reason?: string;
}

export interface ListPage {
  total: number;
  offset: number;
  limit: number;
  memories: ListItem[];
  /** The next page's `after`; absent on the last page. */
  next?: string;
}

/** A full memory (our endpoints). */
export interface Memory {
  id: string;
  layer: LayerId;
  content: string;
  user_id: string;
  agent_id: string;
  session_id: string;
  category: string;
  strength: number;
  source: string;
  source_ids: string[];
  event_at: string | null;
  created_at: string;
  updated_at: string;
  retired_at: string | null;
  retired_by: string;
  retired_how: string;
  retire_reason: string;
  use_count: number;
  last_used_at: string | null;
}

export interface HistoryEntry {
  at: string;
  action: string;
  how?: string;
  reason?: string;
  by?: string;
  old_content?: string;
  detail?: string;
}

/** GET /api/v1/memories/{id}: a memory and its story. */
export interface Detail extends Memory {
  history: HistoryEntry[];
  replaced_by: Memory | null;
  replaced: Memory[];
  sources: Memory[];
}

export interface Why {
  vector: number;
  keyword: number;
  fused: number;
  /** The better hit this one nearly repeats (its score is demoted). */
  duplicate_of?: string;
  [part: string]: number | string | undefined;
}

export interface Hit {
  memory_id: string;
  content: string;
  score: number;
  layer: LayerId;
  category?: string;
  strength: number;
  /** When it was written, in whole Unix seconds (the list's ts is RFC 3339). */
  gmt_created?: number;
  /** When it happened, when known (as the list's event_at). */
  event_at?: string;
  why: Why;
}

export interface SearchAnswer {
  memories: Record<string, Hit[]>;
  order: string[];
  ranked: string[];
  gate?: string;
}

export interface PromptBlock {
  prompt: string;
  bytes: number;
  count: number;
  threshold: number;
}

export interface SnapshotManifest {
  created_at: string;
  reason: string;
  schema_version: number;
  layers: Partial<Record<LayerId, number>>;
  graph_nodes: number;
  graph_edges: number;
}

export interface Snapshot {
  id: string;
  size: number;
  manifest?: SnapshotManifest;
  error?: string;
}

export interface RestoreReport {
  restored: Snapshot;
  before: Snapshot;
  writes_paused_ms: number;
  duration_ms: number;
  /** What is not done yet: the undo snapshot could not be kept (before is empty then). */
  warning?: string;
}

export interface KeyStatus {
  is_set: boolean;
  origin: string;
  keyring_available: boolean;
}

export interface WorkspaceDoc {
  agent: string;
  file: string;
  content: string;
  etag: string;
  exists: boolean;
}

export interface EgressCall {
  at: string;
  host: string;
  model: string;
  purpose: string;
  bytes_out: number;
  bytes_in: number;
  status: number;
  outcome: string;
  duration_ms: number;
}

export interface ModelInfo {
  name: string;
  title: string;
  description: string;
  dims: number;
  size: number;
  installed: boolean;
  active: boolean;
  installing: boolean;
  progress?: { file: string; done: number; total: number; phase: string };
  error?: string;
}

export interface Day {
  date: string;
  added: Partial<Record<LayerId, number>>;
  llm_calls: Record<string, number>;
}

export interface GraphNode {
  id: string;
  label: string;
  type: string;
  page_id?: string; // the entity's L8 page
  created_at: number;
  strength: number;
  degree?: number;
}

/** One belief record of a relation (times in Unix seconds; 0 = unknown or not expired). */
export interface GraphRecord {
  id: string;
  from: string;
  to: string;
  relation: string;
  valid_from: number;
  valid_to: number;
  learned_at: number;
  recorded_at: number;
  expired_at: number;
}

export interface GraphHistory {
  nodes: GraphNode[];
  records: GraphRecord[];
}

/** The Hermes plugin's state in a Hermes home (GET /api/v1/hermes). */
export interface HermesState {
  hermes_home: string;
  home_exists: boolean;
  installed: boolean;
  active: boolean;
  provider: string;
  plugin_version: string;
  bundled_version: string;
  outdated: boolean;
  previous_provider: string;
  previous_set: boolean;
  last_contact: string | null;
  message?: string;
}

/** The editable settings (GET/PUT /api/v1/settings). */
export interface SettingsState {
  keys: string[];
  saved: Record<string, string>;
  next: Record<string, string>;
  running: Record<string, string>;
  pinned: string[];
  /** Saved settings a start ignores (the key: why); the next save drops them. */
  ignored?: Record<string, string>;
  /** Why the settings file cannot be read (it is ignored; a save replaces it). */
  file_error?: string;
  restart_required: boolean;
  can_restart: boolean;
  /** The key was given for this run only: a restart forgets it. */
  key_only_this_run?: boolean;
}

/** The answer of "test connection". */
export interface ConnectionTest {
  ok: boolean;
  reply?: string;
  error?: string;
  duration_ms: number;
  local: boolean;
  /** What a failure most likely means, in plain words. */
  hint?: string;
}

/** GET /api/v1/graph?node=: a node and its neighbours now. */
export interface GraphNeighbourhood {
  neighbors?: { id: string; label: string; relation: string; edge?: { facts?: string[]; sources?: string[] } }[];
}

/** What an export held (counts of what was written). */
export interface ExportReport {
  memories: number;
  files: number;
  nodes: number;
  relations: number;
  links: number;
}

/** POST /api/v1/window/export: the file written, or cancelled. */
export interface ExportedFile extends Partial<ExportReport> {
  cancelled: boolean;
  path?: string;
  bytes?: number;
}

/** POST /api/v1/import: what an import did. */
export interface ImportReport {
  lines: number;
  memories: number;
  imported: number;
  skipped: number;
  reembed: number;
  files: number;
  files_skipped: string[];
  /** What the knowledge graph gained (new entities, relations, links). */
  graph?: { nodes: number; relations: number; links: number };
  /** How many owners' consolidation topics the import added (not sent to the model again). */
  topics?: number;
}

/** POST /api/v1/window/import/choose: the export picked (not read yet), or cancelled. */
export interface ChosenFile {
  cancelled: boolean;
  path?: string;
  name?: string;
  bytes?: number;
}

/** POST /api/v1/window/import: the file imported. */
export interface ImportedFile extends ImportReport {
  path: string;
}
