"""The background writer: every write to the app goes through one queue,
in order, on one thread, so no hook ever waits for the network.

While the app is down, writes wait (up to MAX_QUEUED; beyond that the
oldest are dropped and counted) and go out when it answers again. Once the
provider knows Hermes's home, the queue is also kept in an outbox file
(see outbox.py): what is still queued when Hermes stops, or when the
process dies, is sent by the next session. (The one write in flight at
that moment may be sent twice.) The first failure logs one warning; the
app coming back logs one line.
"""

from __future__ import annotations

import collections
import logging
import threading
import time

from . import outbox
from .client import ApiError, Unreachable

log = logging.getLogger("hyatlas.hermes")

MAX_QUEUED = 500
RETRY_FIRST, RETRY_MAX = 0.5, 10.0
# A write waits as long as the app may take over it: with writes that wait
# for extraction, one call can run for HYATLAS_EXTRACT_TIMEOUT (300 s). A
# shorter wait would send the same write again while the first still runs.
WRITE_TIMEOUT = 330.0
# Statuses that say "not now" rather than "never": the app stopping (503),
# a token being replaced (401), overload (408, 429) or a passing fault
# (5xx: a lock held too long, an embedding that failed). A write refused
# so is tried again for RETRY_STATUS_WINDOW seconds from its first such
# refusal (kept in the outbox, so the time runs on in the next session;
# an outage in between starts it again), long enough for a passing fault
# to pass, after which one that still fails is taken to fail for good and
# dropped, so it cannot hold up the writes behind it for ever. OUTAGE
# statuses (the app stopping, or a token that is wrong until the app is
# connected again) keep the writes waiting like an app that is down (the
# queue is bounded by MAX_QUEUED either way).
TRANSIENT = {401, 408, 429, 500, 502, 503, 504}
OUTAGE = {401, 503}
RETRY_STATUS_WINDOW = 600.0


class Health:
    """Whether the app answered last time; warns once per outage."""

    def __init__(self):
        self._lock = threading.Lock()
        self.down = False
        self.last_ok = 0.0

    def ok(self):
        with self._lock:
            was, self.down, self.last_ok = self.down, False, time.time()
        if was:
            log.info("HyAtlas is reachable again; recall and writes resume")

    def failed(self, why: str):
        with self._lock:
            was, self.down = self.down, True
        if not was:
            log.warning("HyAtlas is not reachable (%s). Hermes carries on without recall; "
                        "writes wait in memory and are sent when the app runs again.", why)


def spawn(fn, name):
    """Starts fn on a daemon thread that keeps Hermes's profile context when it can.

    Hermes's spawn_context_thread returns the thread unstarted (the caller
    starts it); a helper that started it already is left alone.
    """
    try:
        from agent.memory_provider import spawn_context_thread  # newer Hermes: keeps the profile's context
    except Exception:  # older Hermes or outside Hermes
        spawn_context_thread = None
    if spawn_context_thread is not None:
        try:
            t = spawn_context_thread(fn, name=name)
            if t.ident is None:  # not started yet
                t.start()
            return t
        except Exception:
            pass
    t = threading.Thread(target=fn, name=name, daemon=True)
    t.start()
    return t


class Writer:
    """Sends queued calls in order; (seq, method, path, body) is one item.
    With an outbox attached, every queued item is also in its file until it
    is done, so it outlives the process."""

    def __init__(self, client, health: Health):
        self.client, self.health = client, health
        self._q = collections.deque()
        self._cv = threading.Condition()
        self._busy = False
        self._closed = False
        self._thread = None
        self._outbox = None
        self._seq = 0
        self._refused = {}  # seq -> when it was first refused for now (unix time)
        self.dropped = 0
        self.sent = 0
        # Called as on_sent(method, path, body, reply) on the writer's thread
        # after a write succeeded (no lock held); errors are ignored.
        self.on_sent = None

    def attach(self, folder: str) -> int:
        """Keeps the queue in an outbox file in folder from now on, and queues
        first the writes earlier writers left there; returns how many."""
        with self._cv:
            if self._outbox is not None or self._closed or not folder:
                return 0
            try:
                self._outbox = outbox.Outbox(folder)
            except OSError as e:
                log.warning("HyAtlas writes are kept in memory only: %s", e.strerror or type(e).__name__)
                return 0
            left = outbox.claim_orphans(folder)
            old, refused = list(self._q), self._refused
            self._q.clear()
            self._refused = {}
            for method, path, body, at in left:
                self._note_refused(self._enqueue(method, path, body), at)
            for seq, method, path, body in old:
                self._note_refused(self._enqueue(method, path, body), refused.get(seq))
            if self._q:
                self._wake()
        if left:
            log.info("HyAtlas: %d writes left by an earlier session are queued again", len(left))
        return len(left)

    def put(self, method: str, path: str, body: dict):
        with self._cv:
            if self._closed:
                return
            if len(self._q) >= MAX_QUEUED:
                seq = self._q.popleft()[0]
                self._refused.pop(seq, None)
                if self._outbox is not None:
                    try:
                        self._outbox.done(seq)
                    except (OSError, ValueError):
                        pass
                self.dropped += 1
                if self.dropped == 1:
                    log.warning("HyAtlas writes are piling up while the app is down; the oldest are being dropped")
            self._enqueue(method, path, body)
            self._wake()

    def _enqueue(self, method, path, body) -> int:
        """Queues one item (and writes it to the outbox) and returns its
        seq; holds self._cv."""
        self._seq += 1
        if self._outbox is not None:
            try:
                self._outbox.add(self._seq, method, path, body)
            except (OSError, ValueError):
                pass  # the file is a safety net; the queue still has the write
        self._q.append((self._seq, method, path, body))
        return self._seq

    def _note_refused(self, seq, at):
        """Records when item seq was first refused for now (None: it no
        longer counts), in the outbox too; holds self._cv."""
        if at is None and self._refused.pop(seq, None) is None:
            return
        if at is not None:
            self._refused[seq] = at
        if self._outbox is not None:
            try:
                self._outbox.refused(seq, at)
            except (OSError, ValueError):
                pass

    def _wake(self):
        """Starts the sending thread once and wakes it; holds self._cv."""
        if self._thread is None:
            try:
                self._thread = spawn(self._run, "hyatlas-writer")
            except RuntimeError:
                # The interpreter is shutting down (no new threads): the
                # write stays queued, and in the outbox for the next session.
                pass
        self._cv.notify_all()

    def cancel(self, match) -> bool:
        """Takes the first queued write for which match(method, path, body)
        is true out of the queue, and out of the outbox file, so its text
        leaves the disk too; False when none waits (sent already, or being
        sent now: the write in flight is never taken back)."""
        with self._cv:
            for i, (seq, method, path, body) in enumerate(self._q):
                if i == 0 and self._busy:
                    continue
                if match(method, path, body):
                    del self._q[i]
                    self._refused.pop(seq, None)
                    if self._outbox is not None and not self._closed:
                        try:
                            self._outbox.rewrite([(s, m, p, b, self._refused.get(s)) for s, m, p, b in self._q])
                        except (OSError, ValueError):
                            pass
                    self._cv.notify_all()
                    return True
        return False

    def pending(self) -> int:
        with self._cv:
            return len(self._q) + (1 if self._busy else 0)

    def flush(self, timeout: float) -> bool:
        """Waits up to timeout seconds for the queue to empty; True if it did."""
        deadline = time.monotonic() + max(0.0, timeout)
        with self._cv:
            self._cv.notify_all()
            while self._q or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cv.wait(min(left, 0.05))
        return True

    def close(self, timeout: float):
        self.flush(timeout)
        with self._cv:
            self._closed = True
            self._cv.notify_all()
            left = len(self._q)
            if self._outbox is not None:
                self._outbox.close(keep=left > 0)
                if left:
                    log.info("HyAtlas: %d writes wait in %s; the next Hermes session sends them", left, self._outbox.path)
            elif left:
                log.warning("HyAtlas: %d writes are not sent yet and there is no Hermes home to keep them in: "
                            "they are lost if this process ends first", left)

    def _journal_done(self, seq):
        """Marks an item done in the outbox, emptying it with the queue; holds self._cv."""
        if self._outbox is None or self._closed:
            return
        try:
            if self._q:
                self._outbox.done(seq)
            else:
                self._outbox.clear()
        except (OSError, ValueError):
            pass

    def _run(self):
        delay = RETRY_FIRST
        while True:
            with self._cv:
                # An empty queue ends the thread (the next put starts one), so
                # a provider Hermes drops without shutdown() holds no thread;
                # once closed, what is left stays in the outbox for the next session.
                if not self._q or (self._closed and self._outbox is not None):
                    self._thread = None
                    return
                item = self._q[0]
                self._busy = True
            seq, method, path, body = item
            done, reply = True, None
            try:
                reply = self.client.request(method, path, body, timeout=WRITE_TIMEOUT)
                self.health.ok()
                self.sent += 1
                delay = RETRY_FIRST
            except Unreachable as e:
                self.health.failed(str(e))
                done = False
                with self._cv:
                    self._note_refused(seq, None)  # an outage: the fault's time starts again
            except ApiError as e:
                now = time.time()
                with self._cv:
                    if e.status in OUTAGE:
                        self._note_refused(seq, None)
                    elif seq not in self._refused:
                        self._note_refused(seq, now)
                    since = self._refused.get(seq, now)
                if e.status in OUTAGE or (e.status in TRANSIENT and now - since < RETRY_STATUS_WINDOW):
                    self.health.failed(f"{e.status} {e.code}")
                    done = False
                else:  # refused (bad input), or still failing: retrying will not help
                    log.warning("HyAtlas refused a %s %s: %s %s", method, path, e.status, e.code)
            except Exception as e:  # never let the thread die
                log.warning("HyAtlas write failed: %s", type(e).__name__)
            with self._cv:
                if done and self._q and self._q[0] is item:
                    self._q.popleft()
                    self._refused.pop(seq, None)
                    self._journal_done(seq)
                self._busy = False
                self._cv.notify_all()
                if not done:
                    if self._closed:
                        return
                    self._cv.wait(delay)
                    delay = min(delay * 2, RETRY_MAX)
            if reply is not None and self.on_sent is not None:
                try:
                    self.on_sent(method, path, body, reply)
                except Exception as e:
                    log.warning("HyAtlas write follow-up failed: %s", type(e).__name__)
