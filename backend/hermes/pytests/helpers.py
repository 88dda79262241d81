"""Shared set-up: the plugin as `hyatlas hermes install` put it into
HERMES_HOME, the real running HyAtlas it talks to, and stand-in apps
(down, slow) reached through their own discovery files."""

from __future__ import annotations

import http.server
import json
import os
import socket
import sys
import tempfile
import threading
import time
import urllib.request
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
HOME = os.environ["HERMES_HOME"]
PLUGINS = os.path.join(HOME, "plugins")
PLUGIN = os.path.join(PLUGINS, "hyatlas")
BINARY = os.environ.get("HYATLAS_TEST_BIN", "")

sys.path.insert(0, os.path.join(HERE, "stubs"))
sys.path.insert(0, PLUGINS)

import hyatlas  # noqa: E402  (the installed plugin)

with open(os.path.join(PLUGIN, "connection.json"), encoding="utf-8") as f:
    DISCOVERY_PATH = json.load(f)["discovery"]
with open(DISCOVERY_PATH, encoding="utf-8") as f:
    DISCOVERY = json.load(f)
with open(DISCOVERY["token_file"], encoding="utf-8") as f:
    TOKEN = f.read().strip()


def api(method, path, body=None):
    """Calls the real HyAtlas directly (to check what the plugin did)."""
    req = urllib.request.Request(DISCOVERY["address"] + path, method=method,
                                 data=None if body is None else json.dumps(body).encode(),
                                 headers={"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read() or b"{}")


def unique_user() -> str:
    return "u-" + uuid.uuid4().hex[:10]


def live_rows(user, layer=""):
    q = f"/api/v1/list?user_id={user}&limit=100" + (f"&layer={layer}" if layer else "")
    return api("GET", q)["memories"]


def new_provider(test, plugin_dir=PLUGIN, session="s1", **init):
    """An initialised provider. Its Hermes home is a fresh folder unless given,
    so one test's outbox (writes a down app never took) is never sent by another."""
    p = hyatlas.HyatlasMemoryProvider(plugin_dir)
    kw = dict(hermes_home=tempfile.mkdtemp(prefix="hermes-home-"), platform="cli", agent_context="primary",
              agent_identity="hermes")
    kw.update(init)
    p.initialize(session, **kw)
    test.addCleanup(p.shutdown)
    return p


def closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def plugin_dir_for(address: str, auth: bool = True, data_dir: str = "", pid: int | None = None) -> str:
    """A plugin directory whose connection points at a discovery file naming
    address, written by process pid (this test process, alive, by default)."""
    d = tempfile.mkdtemp(prefix="hyatlas-plugin-")
    disc = os.path.join(d, "discovery.json")
    with open(disc, "w", encoding="utf-8") as f:
        json.dump({"address": address, "token_file": DISCOVERY["token_file"], "auth": auth, "data_dir": data_dir,
                   "pid": os.getpid() if pid is None else pid}, f)
    with open(os.path.join(d, "connection.json"), "w", encoding="utf-8") as f:
        json.dump({"discovery": disc}, f)
    return d


def point_at(plugin_dir: str, address: str):
    disc = os.path.join(plugin_dir, "discovery.json")
    with open(disc, "w", encoding="utf-8") as f:
        json.dump({"address": address, "token_file": DISCOVERY["token_file"], "auth": True, "pid": os.getpid()}, f)


class StandInApp:
    """A stand-in app on a loopback port: it records each request (path and
    Authorization) and answers answer(path) (a status and a JSON body)
    after `delay` seconds."""

    proves = True  # answers /proof as HyAtlas does; False: a program that only took the port

    def __init__(self, port: int = 0):
        self.delay = 0.0
        self.seen = []
        app = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                path = self.path.split("?")[0]
                if path == "/proof" and app.proves:  # the app proves it holds the token (not recorded)
                    nonce = self.path.split("nonce=", 1)[-1]
                    raw = json.dumps({"proof": hyatlas.client.proof(TOKEN, nonce)}).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                    return
                app.seen.append((path, self.headers.get("Authorization", "")))
                time.sleep(app.delay)
                try:
                    app.respond(self, path)
                except OSError:
                    pass

            do_GET = do_DELETE = do_POST

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.address = f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, path):
        return 200, {}

    def respond(self, handler, path):
        """Writes the answer to path through the request's handler."""
        status, body = self.answer(path)
        raw = json.dumps(body).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(raw)))
        handler.end_headers()
        handler.wfile.write(raw)

    def close(self):
        self.delay = 0
        self.server.shutdown()
        self.server.server_close()


class SlowApp(StandInApp):
    """A stand-in app whose search answers fast or after `delay` seconds."""

    HIT = {"memory_id": "m-slow-1", "content": "Foxtrot runs on Postgres 16", "score": 0.91, "layer": "l3_fact",
           "event_at": "2026-11-01T09:00:00Z", "gmt_created": 1793000000}

    def answer(self, path):
        return 200, {"memories": {"normal": [self.HIT]}, "order": ["normal"]}


class ScriptedApp(StandInApp):
    """A stand-in app that answers from a script: a list of (status, body)
    per path, the last one repeated."""

    def __init__(self, script: dict):
        self.script = script
        super().__init__()

    def answer(self, path):
        answers = self.script.get(path) or [(200, {})]
        return answers.pop(0) if len(answers) > 1 else answers[0]

