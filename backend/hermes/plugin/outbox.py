"""The outbox: writes waiting for the app, kept in a file, so a write Hermes
handed over survives the process ending (a crash, Hermes quitting, the
gateway replacing the agent) and is sent by the next session.

One file per writer, <HERMES_HOME>/hyatlas/outbox/<pid>-<nonce>.jsonl
(mode 0600, in a 0700 folder): a line per queued write ({"n": seq, "m":
method, "p": path, "b": body}), a line per write done ({"done": seq}) and
one when a write was first refused for now ({"refused": seq, "at": unix
time}, or "at": null once that no longer counts), so the time it may be
tried again for runs on in the next session.
It is emptied whenever the queue is, and removed when its writer closes
with nothing left. A file whose writer is gone (its process ended, or it
was closed in this one) is claimed by the next writer that opens: renamed
first, so two writers never take the same file, then read in order.

Lines are flushed to the operating system at once, which survives the
process ending; they are not synced to the disk on each turn (that would
hold Hermes's thread), so a power cut may lose the last ones.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import weakref

from .client import pid_alive

_live: set[str] = set()  # the files of open writers in this process
_live_lock = threading.Lock()


class Outbox:
    """This writer's file."""

    def __init__(self, folder: str):
        os.makedirs(folder, mode=0o700, exist_ok=True)
        self.folder = folder
        self.path = os.path.join(folder, f"{os.getpid()}-{secrets.token_hex(6)}.jsonl")
        # The file is open only while it holds writes: a provider Hermes
        # drops without shutdown() then holds no file descriptor.
        self._f = None
        with _live_lock:
            _live.add(self.path)
        weakref.finalize(self, _forget, self.path)

    def add(self, seq: int, method: str, path: str, body) -> None:
        self._line({"n": seq, "m": method, "p": path, "b": body})

    def done(self, seq: int) -> None:
        self._line({"done": seq})

    def refused(self, seq: int, at: float | None) -> None:
        self._line({"refused": seq, "at": at})

    def rewrite(self, items) -> None:
        """Replaces the file with one holding only items ((seq, method, path,
        body, refused at or None) each, in order), so a write taken back
        leaves no text behind; with no items the file goes."""
        if not items:
            self.clear()
            return
        if self._f is not None:
            self._f.close()
            self._f = None
        tmp = self.path + ".rewrite"  # not .jsonl: never claimed
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                for seq, method, path, body, at in items:
                    f.write(json.dumps({"n": seq, "m": method, "p": path, "b": body}, separators=(",", ":")) + "\n")
                    if at is not None:
                        f.write(json.dumps({"refused": seq, "at": at}, separators=(",", ":")) + "\n")
            os.replace(tmp, self.path)
        except BaseException:
            try:
                os.remove(tmp)
            except OSError:
                pass
            raise

    def clear(self) -> None:
        """Nothing waits: the file goes (it never grows without bound) and
        comes back with the next write."""
        if self._f is not None:
            self._f.close()
            self._f = None
        try:
            os.remove(self.path)
        except OSError:
            pass

    def close(self, keep: bool) -> None:
        """Closes the file; keep leaves it for the next writer to claim."""
        if self._f is not None:
            self._f.close()
            self._f = None
        _forget(self.path)
        if not keep:
            try:
                os.remove(self.path)
            except OSError:
                pass

    def _open(self) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self._f = os.fdopen(fd, "a", encoding="utf-8")

    def _line(self, obj) -> None:
        if self._f is None:
            self._open()
        self._f.write(json.dumps(obj, separators=(",", ":")) + "\n")
        self._f.flush()


def _forget(path: str) -> None:
    """The file is no longer an open writer's: it may be claimed."""
    with _live_lock:
        _live.discard(path)


def claim_orphans(folder: str) -> list[tuple[str, str, object, float | None]]:
    """The writes left in the files of writers that are gone, oldest file
    first, each in its order, with when each was first refused for now
    (None if it was not); the files are removed once read. A file
    another live writer holds, or one a concurrent claim took first, is
    left alone."""
    try:
        names = sorted(os.listdir(folder), key=lambda n: _mtime(os.path.join(folder, n)))
    except OSError:
        return []
    out = []
    for name in names:
        path = os.path.join(folder, name)
        if not name.endswith(".jsonl"):
            continue
        with _live_lock:
            if path in _live:
                continue
        try:
            pid = int(name.split("-", 1)[0])
        except ValueError:
            continue
        if pid != os.getpid() and pid_alive(pid):
            continue
        claimed = path + f".claimed-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            os.rename(path, claimed)
        except OSError:
            continue  # another writer claimed it first
        out.extend(_read(claimed))
        try:
            os.remove(claimed)
        except OSError:
            pass
    return out


def _read(path: str) -> list[tuple[str, str, object, float | None]]:
    items, done, refused = {}, set(), {}
    try:
        with open(path, "r", encoding="utf-8") as f:
            for line in f:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue  # a line cut short by a crash
                if not isinstance(rec, dict):
                    continue
                if "done" in rec:
                    done.add(rec["done"])
                elif "refused" in rec:
                    at = rec.get("at")
                    refused[rec["refused"]] = float(at) if isinstance(at, (int, float)) else None
                elif isinstance(rec.get("n"), int) and isinstance(rec.get("m"), str) and isinstance(rec.get("p"), str):
                    items[rec["n"]] = (rec["m"], rec["p"], rec.get("b"))
    except OSError:
        return []
    return [items[n] + (refused.get(n),) for n in sorted(items) if n not in done]


def _mtime(path: str) -> float:
    try:
        return os.path.getmtime(path)
    except OSError:
        return 0.0
