"""A stand-in for Hermes's agent/memory_provider.py, shaped like its ABC.

Only the contract the plugin relies on: the abstract members, the
defaults of the optional hooks, RecallStatus, is_trivial_prompt and
spawn_context_thread.
"""

from __future__ import annotations

import contextvars
import re
import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import List, Optional

TRIVIAL_PROMPT_RE = re.compile(r"^\s*(ok|okay|thanks|thank you|hi|hello|/\S+.*)\s*[.!]*\s*$", re.IGNORECASE)
PRE_COMPRESS_CHECKPOINT_API_VERSION = 2


def is_trivial_prompt(text: str) -> bool:
    return not text or bool(TRIVIAL_PROMPT_RE.match(text))


def spawn_context_thread(target, *, name=None, daemon=True, args=(), kwargs=None) -> threading.Thread:
    """As upstream: an UNSTARTED daemon thread running target under a copy
    of the caller's contextvars (the profile's home); the caller starts it."""
    ctx = contextvars.copy_context()
    return threading.Thread(target=lambda: ctx.run(target, *args, **(kwargs or {})), name=name, daemon=daemon)


@dataclass
class RecallStatus:
    provider_label: str
    count: int
    glyph: str = "🧠"


class MemoryProvider(ABC):
    @property
    @abstractmethod
    def name(self) -> str: ...

    @abstractmethod
    def is_available(self) -> bool: ...

    def unavailable_reason(self) -> str:
        return ""

    @abstractmethod
    def initialize(self, session_id: str, **kwargs) -> None: ...

    def initialize_for_inspection(self, session_id: str, **kwargs) -> None:
        self.initialize(session_id, **kwargs)

    def system_prompt_block(self) -> str:
        return ""

    def prefetch(self, query: str, *, session_id: str = "") -> str:
        return ""

    def queue_prefetch(self, query: str, *, session_id: str = "") -> None:
        return None

    def recall_status(self) -> Optional[RecallStatus]:
        return None

    def sync_turn(self, user_content: str, assistant_content: str, *, session_id: str = "", messages=None) -> None:
        return None

    @abstractmethod
    def get_tool_schemas(self) -> List[dict]: ...

    def handle_tool_call(self, tool_name: str, args: dict, **kwargs) -> str:
        raise NotImplementedError

    def shutdown(self) -> None:
        return None

    def on_turn_start(self, turn_number: int, message: str, **kwargs) -> None:
        return None

    def on_session_end(self, messages: List[dict]) -> None:
        return None

    def on_session_switch(self, new_session_id: str, *, parent_session_id: str = "", reset: bool = False,
                          rewound: bool = False, **kwargs) -> None:
        return None

    def on_pre_compress(self, messages: List[dict]) -> str:
        return ""

    def on_memory_write(self, action: str, target: str, content: str, metadata=None) -> None:
        return None

    def on_delegation(self, task: str, result: str, *, child_session_id: str = "", **kwargs) -> None:
        return None

    def get_config_schema(self) -> List[dict]:
        return []

    def save_config(self, values: dict, hermes_home: str) -> None:
        return None

    def backup_paths(self) -> List[str]:
        return []
