"""A small HTTP client for the HyAtlas app's loopback API (standard library only).

The address and the token file come from the app's discovery file, read on
every call, so an app that moved to another port or a token that changed is
picked up at once. The client talks to loopback addresses only, never through
a proxy, and never follows a redirect. The token is sent only to the app and
never logged: before the first call with it to an address, and again after
any call there that could not connect or got no answer (the app may have
stopped), the app proves it holds the token (GET /proof, an HMAC of a fresh
nonce under the token), so a program that took the app's port gets neither
the token nor any text.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import os
import secrets
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

USER_AGENT = "hyatlas-hermes/1.0.5"
LOOPBACK = {"127.0.0.1", "::1", "localhost"}
MAX_REPLY = 4 << 20


class Unreachable(Exception):
    """The app is not running, not installed here, or did not answer in time."""


class TimedOut(Unreachable):
    """The app's process runs but the call ran out of time: no connection
    was refused, only no answer came in time (a slow app, or one busy)."""


def _timed_out(e: BaseException) -> bool:
    """Whether a transport error is a timeout rather than a refusal."""
    return isinstance(e, TimeoutError) or isinstance(getattr(e, "reason", None), TimeoutError)


class ApiError(Exception):
    """The app answered with an error (a 4xx or 5xx and its message)."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(f"HyAtlas answered {status} {code}: {message}")
        self.status, self.code, self.message = status, code, message


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: D401 - urllib hook
        return None


_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())

# (address, hash of the token) pairs whose server proved it holds the
# token, since the last call to it that could not connect or got no answer
# (or one that was not HyAtlas's: not a JSON object).
_proven: set[tuple[str, str]] = set()
_proven_lock = threading.Lock()


def proof(token: str, nonce: str) -> str:
    """What the app answers GET /proof?nonce=N with: HMAC-SHA256 of the nonce under the token."""
    return hmac.new(token.encode("utf-8"), b"hyatlas proof\x00" + nonce.encode("ascii"), hashlib.sha256).hexdigest()


def _proof_key(base: str, token: str) -> tuple[str, str]:
    return base, hashlib.sha256(token.encode("utf-8")).hexdigest()


def _forget_proof(base: str, token: str) -> None:
    """The server at base must prove itself again before it gets token:
    after a connection error the app may have stopped, and whatever
    answers on its port next is not known to be it."""
    with _proven_lock:
        _proven.discard(_proof_key(base, token))


def _check_proof(base: str, token: str, timeout: float) -> None:
    """Raises Unreachable unless the server at base proves it holds token
    (once per pair, until a call to it fails to connect or to answer)."""
    key = _proof_key(base, token)
    with _proven_lock:
        if key in _proven:
            return
    nonce = secrets.token_hex(24)
    req = urllib.request.Request(base + "/proof?nonce=" + nonce, method="GET",
                                 headers={"User-Agent": USER_AGENT, "Accept": "application/json"})
    got = ""
    try:
        with _opener.open(req, timeout=timeout) as resp:
            reply = json.loads(resp.read(4096) or b"{}")
        if isinstance(reply, dict) and isinstance(reply.get("proof"), str):
            got = reply["proof"]
    except urllib.error.HTTPError:
        pass  # no proof: not the app
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as e:
        kind = TimedOut if _timed_out(e) else Unreachable
        raise kind(f"HyAtlas is not reachable at {base}: {getattr(e, 'reason', e)}") from None
    if not hmac.compare_digest(got, proof(token, nonce)):
        raise Unreachable(f"the program at {base} is not this HyAtlas (it cannot prove it holds the API token); "
                          "nothing was sent to it")
    with _proven_lock:
        _proven.add(key)


def _read_by(resp, cap: int, left) -> bytes:
    """At most cap bytes of resp's body, read as they come: left() (the
    time remaining, raising Unreachable when none is) is asked before each
    read, and each waits at most that long, so a body that trickles in
    cannot hold the call past its deadline."""
    parts, n = [], 0
    while n < cap:
        sock = getattr(getattr(getattr(resp, "fp", None), "raw", None), "_sock", None)
        remaining = left()
        if sock is not None:
            sock.settimeout(remaining)
        chunk = resp.read1(min(65536, cap - n))
        if not chunk:
            break
        parts.append(chunk)
        n += len(chunk)
    return b"".join(parts)


def read_json(path: str) -> dict:
    """The JSON object in path, or {} when it is missing or not an object."""
    try:
        with open(path, "r", encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def pid_alive(pid: int) -> bool:
    """Whether process pid runs. Where a process cannot be probed without
    side effects (not POSIX) the answer is yes."""
    if pid == os.getpid() or os.name != "posix":
        return True
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: another user's process has the pid now
        return False
    return True


def app_running(discovery: dict) -> bool:
    """Whether the process that wrote the discovery file still runs. pid 0
    (written by the installer) means the app has not run since."""
    try:
        return pid_alive(int(discovery.get("pid") or 0))
    except (TypeError, ValueError):
        return False


class Client:
    """Calls the app. discovery_path is the app's discovery.json."""

    def __init__(self, discovery_path: str, timeout: float = 5.0):
        self.discovery_path = discovery_path
        self.timeout = timeout

    def discovery(self) -> dict:
        return read_json(self.discovery_path)

    def available(self) -> bool:
        """Whether the discovery file is there (no network)."""
        return bool(self.discovery_path) and os.path.isfile(self.discovery_path)

    def _target(self) -> tuple[str, str]:
        d = self.discovery()
        address = str(d.get("address") or "")
        if not address:
            raise Unreachable("HyAtlas has not been set up on this machine (no discovery file); open the HyAtlas app once")
        if not app_running(d):
            # The file outlives the app: whatever listens on its port now must not get the token.
            raise Unreachable("HyAtlas is not running (the process that wrote its discovery file has ended)")
        parts = urllib.parse.urlsplit(address)
        if parts.scheme != "http" or (parts.hostname or "") not in LOOPBACK:
            raise Unreachable(f"the discovery file names {address!r}, which is not a loopback address; refusing")
        token = ""
        if d.get("auth", True):
            try:
                with open(str(d.get("token_file") or ""), "r", encoding="utf-8") as f:
                    token = f.read().strip()
            except OSError as e:
                raise Unreachable(f"cannot read the HyAtlas token file: {e.strerror}") from None
        return address.rstrip("/"), token

    def request(self, method: str, path: str, body=None, query: dict | None = None, timeout: float | None = None):
        """One call; returns the decoded JSON reply. Raises Unreachable or ApiError.

        timeout bounds the whole call: the proof (the first call to an
        address), the answer and its body, read as it comes, not each of
        them in turn or each read of the socket."""
        limit = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + limit

        def left() -> float:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimedOut(f"HyAtlas did not answer within {limit:g} s")
            return remaining

        base, token = self._target()
        url = base + path
        if query:
            url += "?" + urllib.parse.urlencode({k: v for k, v in query.items() if v not in (None, "")})
        data = None
        headers = {"User-Agent": USER_AGENT, "Accept": "application/json"}
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if token:
            _check_proof(base, token, left())
            headers["Authorization"] = "Bearer " + token
        try:
            return self._send(urllib.request.Request(url, data=data, headers=headers, method=method), base, left)
        except Unreachable:
            _forget_proof(base, token)  # the app may have stopped: whatever answers next proves itself first
            raise
        except ApiError as e:
            if e.code == "bad_reply":
                _forget_proof(base, token)
            raise

    def _send(self, req, base: str, left):
        """Sends req and reads its JSON reply (see request)."""
        try:
            with _opener.open(req, timeout=left()) as resp:
                raw = _read_by(resp, MAX_REPLY, left)
        except urllib.error.HTTPError as e:
            try:
                payload = json.loads(e.read(65536) or b"{}")
            except ValueError:
                payload = {}
            if not isinstance(payload, dict):
                payload = {}
            raise ApiError(e.code, str(payload.get("code", "")), str(payload.get("error", e.reason))) from None
        except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as e:
            # HTTPException: whatever answers does not speak HTTP (a bad status line)
            reason = getattr(e, "reason", e)
            kind = TimedOut if _timed_out(e) else Unreachable
            raise kind(f"HyAtlas is not reachable at {base}: {reason}") from None
        if not raw:
            return {}
        try:
            reply = json.loads(raw)
        except ValueError:
            raise ApiError(200, "bad_reply", "the reply is not JSON") from None
        if not isinstance(reply, dict):  # every HyAtlas reply is an object
            raise ApiError(200, "bad_reply", "the reply is not a JSON object")
        return reply
