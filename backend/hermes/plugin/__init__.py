"""HyAtlas Desktop memory provider for Hermes (standard library only).

Recalls from the HyAtlas app before every turn, writes every turn to it,
mirrors Hermes's built-in memory tool into it and folds the strongest
memories into the system prompt. Importing this module has no side effects
and makes no network call; when the app is not running every hook returns
quietly and writes wait in memory until it is back.
"""

from __future__ import annotations

import logging
import os
import threading
import urllib.parse
import uuid

try:
    from agent.memory_provider import MemoryProvider
except ImportError:  # outside Hermes (e.g. `hermes hyatlas` helpers): a plain base

    class MemoryProvider:  # type: ignore[no-redef]
        pass

from . import process, settings, text, tools
from .client import ApiError, Client, TimedOut, Unreachable
from .writer import Health, Writer, spawn

log = logging.getLogger("hyatlas.hermes")
HERE = os.path.dirname(os.path.abspath(__file__))
LAST_KEPT = 64  # sessions whose last recall (and recent turns, for /undo) are kept
TURNS_KEPT = 32  # a session's latest turns an /undo can take back
STORED_KEPT = 256  # memory ids of recently stored turns, by request id
OWN_TURNS_MARGIN = 12  # hits asked for beyond recall_limit, for the session's own turns left out
MIRROR_SOURCE = "hermes:memory_tool"  # the source of entries mirrored from Hermes's memory tool


class HyatlasMemoryProvider(MemoryProvider):
    """The memory.provider named hyatlas."""

    def __init__(self, plugin_dir: str = HERE):
        conn = settings.read_json(os.path.join(plugin_dir, "connection.json"))
        self.client = Client(str(conn.get("discovery") or ""))
        self.health = Health()
        self.writer = Writer(self.client, self.health)
        self.hermes_home = ""
        self.settings = settings.load("")
        self.user_id, self.agent_id, self.platform = "default", "default", ""
        self.session_id = ""
        self.writes = True
        self._lock = threading.Lock()
        # session -> (block, {id: content}, handed): the session's latest
        # recall, and whether Hermes was given it already (a recall before a
        # turn was; one warmed for the next turn was not yet).
        # Per session: the latest recall (block, the memories in it, whether
        # Hermes was given it) and the ticket of the search that made it.
        self._last: dict[str, tuple[str, dict[str, str], bool, int]] = {}
        self._tickets = 0
        self._count = None
        self._ended = None  # the session whose end was sent last, until work goes on in one
        # For /undo: each session's latest turns, newest last, as (the
        # turn's request id, its feedback's or ""); the memory id HyAtlas
        # answered each recent turn with; turns undone while being sent,
        # deleted once their answer comes.
        self._turns: dict[str, list[tuple[str, str]]] = {}
        self._stored: dict[str, str] = {}
        self._undo: set[str] = set()
        self.writer.on_sent = self._sent

    # --- identity and setup -------------------------------------------------
    @property
    def name(self) -> str:
        return "hyatlas"

    def is_available(self) -> bool:
        return self.client.available()

    def unavailable_reason(self) -> str:
        return ("HyAtlas is not set up for this Hermes: open the HyAtlas app and click Connect Hermes "
                "(or run `hyatlas hermes install`)")

    def initialize(self, session_id: str, **kwargs) -> None:
        self.hermes_home = str(kwargs.get("hermes_home") or os.environ.get("HERMES_HOME") or "")
        self.settings = settings.load(self.hermes_home)
        self.session_id = session_id or ""
        self.user_id = str(kwargs.get("user_id") or self.settings["user_id"] or "default")
        self.agent_id = str(kwargs.get("agent_identity") or "default")
        self.platform = str(kwargs.get("platform") or "")
        self.writes = str(kwargs.get("agent_context") or "primary") == "primary"
        self.client.timeout = 5.0
        if self.writes and self.hermes_home:
            self.writer.attach(os.path.join(self.hermes_home, "hyatlas", "outbox"))
        if self.settings["auto_start"] and self.writes:
            try:
                self.client.request("GET", "/healthz", timeout=0.5)
            except Unreachable:
                try:
                    log.info("%s", process.start(self.hermes_home, self.settings["binary_path"], self.client.discovery()))
                except OSError as e:
                    log.warning("HyAtlas auto start failed: %s", e.strerror or type(e).__name__)
            except ApiError:
                pass

    def initialize_for_inspection(self, session_id: str, **kwargs) -> None:
        """Hermes inspecting its providers (no session): settings only, no network, no auto start."""
        self.hermes_home = str(kwargs.get("hermes_home") or os.environ.get("HERMES_HOME") or "")
        self.settings = settings.load(self.hermes_home)
        self.session_id = session_id or ""
        self.writes = False

    def owner(self) -> dict:
        """Whose memories these are, as HyAtlas takes ids: a user or profile
        named "all", an id HyAtlas reserves, is "_all" (settings.owner_id)."""
        return {"user_id": settings.owner_id(self.user_id), "agent_id": settings.owner_id(self.agent_id)}

    # --- recall -------------------------------------------------------------
    def system_prompt_block(self) -> str:
        tools_line = ("HyAtlas long-term memory tools: " + ", ".join(tools.NAMES) +
                      " (search before saying you don't know something about the user).")
        try:
            r = self.client.request("GET", "/api/v1/prompt", query=self.owner(), timeout=2.0)
            self.health.ok()
        except (Unreachable, ApiError) as e:
            self.health.failed(str(e))
            return tools_line
        block = str(r.get("prompt") or "").strip()
        return text.fenced_prompt(block) + "\n\n" + tools_line if block else tools_line

    def _ticket(self) -> int:
        with self._lock:
            self._tickets += 1
            return self._tickets

    def _search(self, query: str, session_id: str, timeout: float, handed: bool) -> str:
        # More are asked for than are kept: the session's own turns, which
        # rank high (recent, on the same words), are left out.
        ticket = self._ticket()  # taken as the search starts: a slower, older one never replaces it
        limit = self.settings["recall_limit"]
        body = dict(self.owner(), query=query, limit=min(limit + OWN_TURNS_MARGIN, 100), session_id=session_id)
        reply = self.client.request("POST", "/api/v1/search", body, timeout=timeout)
        self.health.ok()
        reply = text.without_own_turns(reply, session_id, limit)
        block, ids = text.format_recall(query, reply)
        contents = {h.get("memory_id"): str(h.get("content", "")) for _, h in text.hits_of(reply) if h.get("memory_id") in ids}
        self._keep(session_id, block, contents, handed, ticket)
        return block

    def _keep(self, session_id: str, block: str, contents: dict, handed: bool, ticket: int = 0) -> None:
        """Records the session's latest recall; handed: Hermes got it.

        ticket orders recalls by when their search started (0: now): a
        warm-up that answers after the turn's own recall does not replace
        it, so feedback reads what Hermes was given and no later turn gets
        the warm-up's older block."""
        ticket = ticket or self._ticket()
        with self._lock:
            kept = self._last.get(session_id)
            if kept is not None and kept[3] > ticket:
                return
            self._last.pop(session_id, None)  # the newest goes last, the oldest first
            self._last[session_id] = (block, contents, handed, ticket)
            while len(self._last) > LAST_KEPT:
                self._last.pop(next(iter(self._last)))
            if handed:
                self._count = (len(contents) or None) if block else None  # Hermes reads 0 as "recalled relevant memory"

    def prefetch(self, query: str, *, session_id: str = "") -> str:
        """The recall block for this turn.

        Rules: a trivial prompt gets none. When the search fails, the turn
        gets nothing, with one exception: a search that ran out of time
        against an app whose process runs (TimedOut) gets the session's
        latest recall if Hermes was not given it yet (one warmed by
        queue_prefetch for this turn). A block Hermes was given already is
        never handed back: it would repeat an earlier turn's memories as
        this one's (and an app that is down gives nothing at all)."""
        session_id = session_id or self.session_id
        if text.is_trivial(query):
            self._keep(session_id, "", {}, True)
            return ""
        try:
            return self._search(query, session_id, self.settings["prefetch_timeout"], True)
        except (Unreachable, ApiError) as e:
            self.health.failed(str(e))
            block, contents = "", {}
            if isinstance(e, TimedOut):
                with self._lock:
                    block, contents, handed, _ = self._last.get(session_id, ("", {}, True, 0))
                if handed:
                    block, contents = "", {}
            self._keep(session_id, block, contents, True)
            return block
        except Exception as e:  # never break a turn
            log.warning("HyAtlas recall failed: %s", type(e).__name__)
            self._keep(session_id, "", {}, True)
            return ""

    def queue_prefetch(self, query: str, *, session_id: str = "") -> None:
        session_id = session_id or self.session_id
        if text.is_trivial(query):
            return

        def warm():
            try:
                self._search(query, session_id, 5.0, False)
            except Exception:
                pass

        spawn(warm, "hyatlas-prefetch")

    def recall_status(self):
        with self._lock:
            count = self._count
        if count is None:
            return None
        try:
            from agent.memory_provider import RecallStatus
        except ImportError:
            return None
        return RecallStatus(provider_label="HyAtlas", count=count)

    # --- writes -------------------------------------------------------------
    def sync_turn(self, user_content, assistant_content, *, session_id: str = "", messages=None, **kwargs) -> None:
        if not self.writes:
            return
        session_id = session_id or self.session_id
        body = text.turn_text(str(user_content or ""), str(assistant_content or ""))
        if not body:
            return
        meta = {"source": "hermes"}
        if self.platform:
            meta["platform"] = self.platform
        # The request id makes the turn stored once even when it is sent
        # again because HyAtlas stopped before it answered.
        rid, fb = uuid.uuid4().hex, ""
        self.writer.put("POST", "/api/v1/add", dict(self.owner(), text=body, session_id=session_id, metadata=meta,
                                                    request_id=rid))
        if session_id == self._ended:
            self._ended = None  # an ended session taken up again: its next end is sent
        with self._lock:
            _, recalled, handed, _ = self._last.get(session_id, ("", {}, False, 0))
        # Only what this turn's recall gave Hermes can have been used.
        used = text.used_memories(str(assistant_content or ""), recalled if handed else {})
        if used:
            # Counted once even when sent again after a lost answer.
            fb = uuid.uuid4().hex
            self.writer.put("POST", "/api/v1/feedback", {"used": used, "request_id": fb})
        with self._lock:
            turns = self._turns.pop(session_id, [])  # the newest session goes last, the oldest first
            self._turns[session_id] = (turns + [(rid, fb)])[-TURNS_KEPT:]
            while len(self._turns) > LAST_KEPT:
                self._turns.pop(next(iter(self._turns)))

    def _sent(self, method, path, body, reply) -> None:
        """The writer stored something: keeps a turn's memory id for /undo,
        and deletes a turn undone while it was being sent."""
        if path != "/api/v1/add" or not isinstance(body, dict) or not isinstance(reply, dict):
            return
        rid, mid = str(body.get("request_id") or ""), str(reply.get("memory_id") or "")
        if not rid or not mid:
            return
        with self._lock:
            undone = rid in self._undo
            self._undo.discard(rid)
            if not undone:
                self._stored[rid] = mid
                while len(self._stored) > STORED_KEPT:
                    self._stored.pop(next(iter(self._stored)))
        if undone:
            self.writer.put("DELETE", "/api/v1/memories/" + urllib.parse.quote(mid, safe=""), None)

    def _undo_turn(self, session_id: str) -> None:
        """/undo: takes the session's latest turn back. Still queued, it is
        never sent (and leaves the outbox); sent, its memory is deleted
        (DELETE /api/v1/memories/{id}, after the write if it is being sent
        now). Its feedback, if still queued, goes too. Hermes does not say
        how many turns an /undo took back: each /undo takes one."""
        with self._lock:
            turns = self._turns.get(session_id) or []
            if not turns:
                return
            rid, fb = turns.pop()
        if fb:
            self.writer.cancel(lambda m, p, b: p == "/api/v1/feedback" and isinstance(b, dict) and b.get("request_id") == fb)
        if self.writer.cancel(lambda m, p, b: p == "/api/v1/add" and isinstance(b, dict) and b.get("request_id") == rid):
            return
        with self._lock:
            mid = self._stored.pop(rid, "")
            if not mid:
                self._undo.add(rid)  # being sent now: deleted when its answer comes
                return
        self.writer.put("DELETE", "/api/v1/memories/" + urllib.parse.quote(mid, safe=""), None)

    def on_memory_write(self, action, target, content, metadata=None) -> None:
        if not self.writes:
            return
        meta = metadata if isinstance(metadata, dict) else {}
        old = str(meta.get("previous_content") or "").strip()
        locator = str(meta.get("old_text") or "").strip()
        content = str(content or "").strip()
        if action in ("replace", "remove") and (old or locator):
            # Only the entry mirrored below, never a turn or fact that says the same.
            self.writer.put("POST", "/api/v1/forget", dict(self.owner(), text=old or locator, contains=not old,
                                                           source=MIRROR_SOURCE,
                                                           reason=f"{action}d with Hermes's memory tool"))
        if action in ("add", "replace") and content:
            # Stored once even when sent again after a lost answer, as a turn is.
            self.writer.put("POST", "/api/v1/memories", dict(
                self.owner(), content=content, layer="l1_profile",
                category="preference" if target == "user" else "fact", source=MIRROR_SOURCE,
                metadata={"target": str(target or ""), "write_origin": str(meta.get("write_origin") or "")},
                request_id=uuid.uuid4().hex))

    def _end_episode(self, session_id: str) -> None:
        session_id = session_id or ""
        if self.writes and session_id != self._ended:  # /new calls on_session_end, then the switch
            self._ended = session_id
            self.writer.put("POST", "/api/v1/session/end", dict(self.owner(), session_id=session_id))

    def on_session_end(self, messages) -> None:
        self._end_episode(self.session_id)

    def on_session_switch(self, new_session_id, *, parent_session_id="", reset=False, rewound=False, **kwargs) -> None:
        # Only a reset ends the work: compression, /resume and /branch go on
        # with the same conversation under a new id (reset False).
        if reset and not rewound:
            self._end_episode(parent_session_id or self.session_id)
        else:
            self._ended = None  # work goes on (a /resume of an ended session too): its next end is sent
        self.session_id = new_session_id or self.session_id
        if rewound and self.writes:  # /undo: the same session without its last turn
            self._undo_turn(self.session_id)

    def on_pre_compress(self, messages) -> str:
        if not self.health.down:  # waiting on an app that is down only holds Hermes up
            self.writer.flush(2.0)
        return ""

    # --- tools, settings, lifetime -----------------------------------------
    def get_tool_schemas(self):
        return [dict(s) for s in tools.SCHEMAS]

    def handle_tool_call(self, tool_name, args, **kwargs) -> str:
        return tools.call(self, tool_name, args)

    def get_config_schema(self):
        return settings.schema()

    def save_config(self, values, hermes_home) -> None:
        self.settings = settings.load(hermes_home) | settings.save(values, hermes_home)

    def backup_paths(self):
        # HyAtlas's snapshots, never its live data directory: a copy of a
        # SQLite database taken file by file while the app writes can be
        # torn. Each snapshot is a finished, checked zip.
        snaps = str(self.client.discovery().get("snapshots") or "")
        return [snaps] if os.path.isabs(snaps) and os.path.isdir(snaps) else []

    def shutdown(self) -> None:
        # Waiting on an app that is down only holds Hermes's exit up: what
        # is not sent waits in the outbox for the next session.
        self.writer.close(0.0 if self.health.down else 2.0)


def register(ctx) -> None:
    """Hermes's plugin entry point."""
    ctx.register_memory_provider(HyatlasMemoryProvider())


__all__ = ["HyatlasMemoryProvider", "register"]
