"""The app down, slow or coming back; secrets stay out of the log; auto start."""

from __future__ import annotations

import io
import json
import logging
import os
import stat
import tempfile
import time
import unittest

from helpers import (DISCOVERY, HOME, ScriptedApp, SlowApp, StandInApp, closed_port, hyatlas, live_rows, new_provider,
                     plugin_dir_for, point_at, unique_user)

SECRET = "sk-proj-9f8e7d6c5b4a39281726354433221100"


class CapturedLog:
    """Every record of every logger, at DEBUG, as text."""

    def __init__(self, test):
        self.buf = io.StringIO()
        self.handler = logging.StreamHandler(self.buf)
        self.handler.setFormatter(logging.Formatter("%(levelname)s %(name)s %(message)s"))
        root = logging.getLogger()
        self.old = root.level
        root.addHandler(self.handler)
        root.setLevel(logging.DEBUG)
        test.addCleanup(self.close)

    def text(self):
        self.handler.flush()
        return self.buf.getvalue()

    def close(self):
        root = logging.getLogger()
        root.removeHandler(self.handler)
        root.setLevel(self.old)


class AppDown(unittest.TestCase):
    def test_hooks_return_quietly_warn_once_and_send_queued_writes_when_it_returns(self):
        user = unique_user()
        plugin = plugin_dir_for(f"http://127.0.0.1:{closed_port()}")
        log = CapturedLog(self)
        p = new_provider(self, plugin_dir=plugin, user_id=user, session="down")
        self.assertTrue(p.is_available())
        start = time.monotonic()
        block = p.system_prompt_block()
        self.assertIn("hyatlas_search", block)
        for i in range(5):
            self.assertEqual(p.prefetch(f"What did we decide about item {i}?", session_id="down"), "")
            p.sync_turn(f"Decision {i}: ship the walnut release.", f"Noted decision {i}.", session_id="down")
        p.on_memory_write("add", "user", "Likes walnut bread")
        out = json.loads(p.handle_tool_call("hyatlas_search", {"query": "walnut"}))
        self.assertIn("not running", out["error"])
        self.assertLess(time.monotonic() - start, 5.0, "hooks must not wait on an app that is down")
        time.sleep(1.0)  # let the writer try and fail a few times
        warnings = [l for l in log.text().splitlines() if l.startswith("WARNING") and "not reachable" in l]
        self.assertEqual(len(warnings), 1, log.text())
        self.assertGreaterEqual(p.writer.pending(), 6)
        # The app comes back (here: the discovery file names the running one).
        point_at(plugin, DISCOVERY["address"])
        self.assertTrue(p.writer.flush(30), "queued writes were not sent after the app came back")
        rows = live_rows(user)
        self.assertEqual(len(rows), 6)
        self.assertIn("reachable again", log.text())

    def test_the_queue_is_bounded_and_drops_the_oldest(self):
        from hyatlas import writer
        old = writer.MAX_QUEUED
        writer.MAX_QUEUED = 3
        self.addCleanup(setattr, writer, "MAX_QUEUED", old)
        p = new_provider(self, plugin_dir=plugin_dir_for(f"http://127.0.0.1:{closed_port()}"), user_id=unique_user())
        for i in range(8):
            p.sync_turn(f"Turn {i} about the garden shed.", "Noted.", session_id="b")
        self.assertLessEqual(p.writer.pending(), 3 + 1)  # the queue plus the one being tried
        self.assertGreaterEqual(p.writer.dropped, 4)

    def test_missing_discovery_and_token_are_handled(self):
        plugin = plugin_dir_for("http://127.0.0.1:1")
        os.remove(os.path.join(plugin, "discovery.json"))
        p = new_provider(self, plugin_dir=plugin)
        self.assertEqual(p.prefetch("where is the walnut bread?"), "")
        self.assertIn("error", json.loads(p.handle_tool_call("hyatlas_status", {})))
        remote = plugin_dir_for("http://192.0.2.10:19528")
        out = json.loads(new_provider(self, plugin_dir=remote).handle_tool_call("hyatlas_status", {}))
        self.assertIn("error", out)


class AppSlow(unittest.TestCase):
    def test_a_slow_app_gives_the_recall_warmed_for_the_turn_once(self):
        app = SlowApp()
        self.addCleanup(app.close)
        p = short_timeout_provider(self, app, "slow")
        first = p.prefetch("What database does Foxtrot use?", session_id="slow")
        self.assertIn("Postgres 16", first)
        self.assertEqual(p.recall_status().count, 1)
        app.delay = 4.0
        start = time.monotonic()
        second = p.prefetch("And which version of it?", session_id="slow")
        took = time.monotonic() - start
        self.assertLess(took, 3.0, f"prefetch took {took:.1f}s with a 0.5 s timeout")
        self.assertEqual(second, "", "the block Hermes was given last turn is handed back as this turn's")
        self.assertIsNone(p.recall_status())
        # A recall warmed after the turn (queue_prefetch) and not given yet
        # stands in once for a search that runs out of time.
        app.delay = 0.0
        p.queue_prefetch("Which version of Postgres?", session_id="slow")
        wait_for(lambda: p._last.get("slow", ("", {}, True))[0])
        app.delay = 4.0
        self.assertIn("Postgres 16", p.prefetch("And the one after that?", session_id="slow"))
        self.assertEqual(p.recall_status().count, 1)
        self.assertEqual(p.prefetch("Still there?", session_id="slow"), "", "the same block is handed twice")
        self.assertIsNone(p.recall_status())
        self.assertEqual(p.prefetch("Something else entirely?", session_id="other"), "")

    def test_an_app_that_quit_gives_no_recall_not_the_last_block_again(self):
        # README: "When HyAtlas is not running, Hermes carries on without recall".
        app = SlowApp()
        self.addCleanup(app.close)
        plugin = plugin_dir_for(app.address)
        p = new_provider(self, plugin_dir=plugin, user_id=unique_user(), session="q")
        self.assertIn("Postgres 16", p.prefetch("What database does Foxtrot use?", session_id="q"))
        app.delay = 0.0
        p.queue_prefetch("What database does Foxtrot use?", session_id="q")  # warmed, not given
        wait_for(lambda: len(app.seen) >= 2)
        time.sleep(0.2)  # the warmed recall is kept
        point_at(plugin, f"http://127.0.0.1:{closed_port()}")  # HyAtlas quit
        for q in ("What should I cook tonight?", "Any plans for the weekend?"):
            got = p.prefetch(q, session_id="q")
            self.assertEqual(got, "", f"app down, new question {q!r}: an earlier block is injected again:\n{got}")
            self.assertIsNone(p.recall_status(), "the indicator says memories were recalled while the app is down")

    def test_a_reply_that_trickles_in_is_given_up_at_the_timeout(self):
        # Each read of the socket had the timeout, the whole body none: a
        # reply sent a byte at a time held the recall (and Hermes's turn)
        # for as long as it trickled.
        app = TricklingApp()
        self.addCleanup(app.close)
        p = short_timeout_provider(self, app, "t")
        start = time.monotonic()
        self.assertEqual(p.prefetch("What database does Foxtrot use?", session_id="t"), "")
        took = time.monotonic() - start
        self.assertLess(took, 10.0, f"prefetch took {took:.1f}s with a 0.5 s timeout while the reply trickled for 30 s")


def wait_for(cond, timeout=10.0):
    """Waits until cond() is true (a background recall landed)."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.02)


def short_timeout_provider(test, app, session):
    """A provider of a Hermes home whose recall waits 0.5 s, for app."""
    home = tempfile.mkdtemp(prefix="hermes-slow-")
    with open(os.path.join(home, "hyatlas.json"), "w") as f:
        json.dump({"prefetch_timeout": 0.5}, f)
    return new_provider(test, plugin_dir=plugin_dir_for(app.address, auth=False), hermes_home=home, session=session)


class TricklingApp(StandInApp):
    """A stand-in app whose reply promises 100,000 bytes and sends one
    every 0.1 s for at most 30 s."""

    closed = False

    def respond(self, handler, path):
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", "100000")
        handler.end_headers()
        for _ in range(300):
            if self.closed:
                return
            handler.wfile.write(b" ")
            handler.wfile.flush()
            time.sleep(0.1)

    def close(self):
        self.closed = True
        super().close()


class Secrets(unittest.TestCase):
    def test_turns_and_tool_arguments_are_never_logged(self):
        log = CapturedLog(self)
        for address in (DISCOVERY["address"], f"http://127.0.0.1:{closed_port()}"):
            plugin = plugin_dir_for(address)
            p = new_provider(self, plugin_dir=plugin, user_id=unique_user(), session="sec")
            p.prefetch(f"my key is {SECRET}, remember it", session_id="sec")
            p.sync_turn(f"Here is my API key {SECRET}", f"I will not repeat {SECRET}.", session_id="sec")
            p.on_memory_write("add", "user", f"key {SECRET}")
            p.handle_tool_call("hyatlas_remember", {"text": f"token {SECRET}"})
            p.handle_tool_call("hyatlas_search", {"query": SECRET, "bogus": SECRET})
            p.writer.flush(1.0)
        self.assertNotIn(SECRET, log.text())
        self.assertNotIn(SECRET[:12], log.text())


class Outbox(unittest.TestCase):
    """Writes Hermes handed over outlive the process: the next session sends them."""

    def test_writes_left_at_shutdown_are_sent_by_the_next_session(self):
        user, home = unique_user(), tempfile.mkdtemp(prefix="hermes-outbox-")
        down = plugin_dir_for(f"http://127.0.0.1:{closed_port()}")
        a = new_provider(self, plugin_dir=down, hermes_home=home, user_id=user)
        a.sync_turn("Outbox test: the van is orange.", "Orange van noted.", session_id="o1")
        a.on_memory_write("add", "user", "Outbox test: prefers orange vans")
        # Another session of the same Hermes, opened meanwhile, leaves a's file alone.
        b = new_provider(self, plugin_dir=down, hermes_home=home, user_id=user)
        self.assertEqual(b.writer.pending(), 0)
        a.writer.close(0.2)
        folder = os.path.join(home, "hyatlas", "outbox")
        self.assertEqual(len([n for n in os.listdir(folder) if os.path.getsize(os.path.join(folder, n))]), 1)
        # The app is back: the next session sends them first.
        c = new_provider(self, hermes_home=home, user_id=user)
        self.assertTrue(c.writer.flush(15))
        self.assertEqual(len(live_rows(user)), 2)
        self.assertEqual([n for n in os.listdir(folder) if os.path.getsize(os.path.join(folder, n))], [],
                         "sent writes are still in the outbox")

    def test_writes_survive_the_process_dying(self):
        import subprocess
        import sys
        user, home = unique_user(), tempfile.mkdtemp(prefix="hermes-crash-")
        down = plugin_dir_for(f"http://127.0.0.1:{closed_port()}")
        here = os.path.dirname(os.path.abspath(__file__))
        code = (f"import os, sys; sys.path[:0] = [{os.path.join(here, 'stubs')!r}, {os.path.dirname(down)!r}, "
                f"{os.path.dirname(os.path.dirname(hyatlas.__file__))!r}]\n"
                "import hyatlas\n"
                f"p = hyatlas.HyatlasMemoryProvider({down!r})\n"
                f"p.initialize('crash', hermes_home={home!r}, user_id={user!r}, agent_context='primary')\n"
                "p.sync_turn('Crash test: the kayak is yellow.', 'Yellow kayak noted.', session_id='crash')\n"
                "os._exit(0)  # no shutdown: the process just ends\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                             env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
        self.assertEqual(out.returncode, 0, out.stderr)
        c = new_provider(self, hermes_home=home, user_id=user)
        self.assertTrue(c.writer.flush(15))
        rows = live_rows(user)
        self.assertEqual(len(rows), 1, rows)
        self.assertIn("kayak is yellow", rows[0]["content"])


class Misbehaving(unittest.TestCase):
    def test_a_stale_discovery_file_gets_no_token(self):
        # The app quit and another program took its port: the discovery
        # file names a process that has ended, so nothing is sent to it.
        import subprocess
        import sys
        dead = subprocess.Popen([sys.executable, "-c", "pass"])
        dead.wait()
        app = ScriptedApp({})
        self.addCleanup(app.close)
        p = new_provider(self, plugin_dir=plugin_dir_for(app.address, pid=dead.pid), user_id=unique_user())
        self.assertEqual(p.prefetch("what is my bike colour?", session_id="s"), "")
        p.sync_turn("The stale test: my bike is red.", "Red bike noted.", session_id="s")
        p.writer.flush(1.0)
        self.assertEqual(app.seen, [], "a request reached the program on the old port")
        self.assertEqual(p.writer.pending(), 1, "the write waits for the app instead")

    def test_a_program_that_cannot_prove_it_holds_the_token_gets_nothing(self):
        # The process the discovery file names runs (a pid reused, or
        # Windows, where it cannot be checked), but the program on the port
        # is not the app: it cannot answer the proof, so it gets no token
        # and no text, and the write waits.
        app = ScriptedApp({})
        app.proves = False
        self.addCleanup(app.close)
        p = new_provider(self, plugin_dir=plugin_dir_for(app.address), user_id=unique_user())
        self.assertEqual(p.prefetch("what is my bike colour?", session_id="s"), "")
        p.sync_turn("The squatter test: my bike is green.", "Green bike noted.", session_id="s")
        p.writer.flush(1.0)
        self.assertEqual([s for s in app.seen if s[0] != "/proof"], [], "a request past the proof reached a program that is not the app")
        self.assertEqual([s for s in app.seen if s[1]], [], "the token went to a program that is not the app")
        self.assertEqual(p.writer.pending(), 1, "the write waits for the app instead")

    def test_a_program_that_takes_the_port_after_the_app_stopped_gets_no_token(self):
        # The app proved itself once; then it stopped and another program
        # took its port (the discovery file's process still runs: a pid
        # reused, or Windows). The proof is asked for again, so the token
        # never reaches that program.
        app = StandInApp()
        port = app.server.server_address[1]
        p = new_provider(self, plugin_dir=plugin_dir_for(app.address), user_id=unique_user())
        p.client.request("GET", "/api/v1/status")
        self.assertTrue(app.seen[-1][1].startswith("Bearer "))
        app.close()
        with self.assertRaises(hyatlas.client.Unreachable):
            p.client.request("GET", "/api/v1/status")
        squatter = StandInApp(port=port)
        squatter.proves = False
        self.addCleanup(squatter.close)
        with self.assertRaises(hyatlas.client.Unreachable):
            p.client.request("GET", "/api/v1/status")
        self.assertEqual([s for s in squatter.seen if s[1]], [], "the token went to the program that took the port")
        self.assertEqual([s[0] for s in squatter.seen], ["/proof"])

    def test_a_reply_that_is_not_an_object_raises_nothing(self):
        app = ScriptedApp({"/api/v1/search": [(200, [])], "/api/v1/prompt": [(200, ["x"])]})
        self.addCleanup(app.close)
        p = new_provider(self, plugin_dir=plugin_dir_for(app.address), user_id=unique_user())
        self.assertEqual(p.prefetch("what is my bike colour?", session_id="s"), "")
        self.assertTrue(p.system_prompt_block().startswith("HyAtlas long-term memory tools"))

    def test_a_write_refused_for_now_is_sent_again(self):
        # 503 (the app stopping) and 429 are "not now": the write is tried
        # again, not dropped; a 422 is dropped at once.
        app = ScriptedApp({"/api/v1/add": [(503, {"code": "unavailable", "error": "stopping"}),
                                           (429, {"code": "busy", "error": "later"}), (200, {"success": True})],
                           "/api/v1/feedback": [(422, {"code": "invalid", "error": "bad"})]})
        self.addCleanup(app.close)
        p = new_provider(self, plugin_dir=plugin_dir_for(app.address), user_id=unique_user())
        p.writer.put("POST", "/api/v1/add", {"text": "retried"})
        p.writer.put("POST", "/api/v1/feedback", {"used": ["m1"]})
        self.assertTrue(p.writer.flush(15))
        self.assertEqual([s for s, _ in app.seen], ["/api/v1/add"] * 3 + ["/api/v1/feedback"])
        self.assertEqual(p.writer.sent, 1)


    def test_writes_refused_for_a_wrong_token_wait_until_it_is_right(self):
        # A 401 lasts until the app is connected again (a new token): like
        # an app that is down, the writes wait instead of being dropped
        # after a few tries.
        from hyatlas import writer
        saved = writer.RETRY_FIRST, writer.RETRY_MAX
        writer.RETRY_FIRST, writer.RETRY_MAX = 0.01, 0.02
        self.addCleanup(lambda: setattr(writer, "RETRY_FIRST", saved[0]) or setattr(writer, "RETRY_MAX", saved[1]))
        unauthorized = (401, {"code": "unauthorized", "error": "bad token"})
        saved_window = writer.RETRY_STATUS_WINDOW
        writer.RETRY_STATUS_WINDOW = 0.05
        self.addCleanup(lambda: setattr(writer, "RETRY_STATUS_WINDOW", saved_window))
        app = ScriptedApp({"/api/v1/add": [unauthorized] * 30 + [(200, {"success": True})]})
        self.addCleanup(app.close)
        p = new_provider(self, plugin_dir=plugin_dir_for(app.address), user_id=unique_user())
        p.writer.put("POST", "/api/v1/add", {"text": "written while the token was wrong"})
        self.assertTrue(p.writer.flush(15))
        self.assertEqual(len(app.seen), 31)
        self.assertEqual(p.writer.sent, 1, "the write was dropped")

    def test_the_time_a_failing_write_is_tried_for_runs_on_in_the_next_session(self):
        # A write first refused 11 minutes ago, in an earlier session, and
        # left in the outbox, is dropped at its next refusal; the write
        # behind it goes through at once. Its refusal time starts again
        # after an outage (the null line).
        home = tempfile.mkdtemp(prefix="hermes-outbox-")
        folder = os.path.join(home, "hyatlas", "outbox")
        os.makedirs(folder, mode=0o700)
        old = {"text": "failing write", "user_id": unique_user()}
        lines = [{"n": 1, "m": "POST", "p": "/api/v1/add", "b": old}, {"refused": 1, "at": time.time() - 660},
                 {"n": 2, "m": "POST", "p": "/api/v1/add", "b": old}, {"refused": 2, "at": time.time() - 660},
                 {"refused": 2, "at": None}]
        with open(os.path.join(folder, f"{os.getpid()}-seeded.jsonl"), "w", encoding="utf-8") as f:
            f.write("".join(json.dumps(x) + "\n" for x in lines))
        app = ScriptedApp({"/api/v1/add": [(500, {"code": "internal", "error": "still failing"}),
                                           (500, {"code": "internal", "error": "still failing"}),
                                           (200, {"success": True})],
                           "/api/v1/feedback": [(200, {"success": True})]})
        self.addCleanup(app.close)
        p = new_provider(self, plugin_dir=plugin_dir_for(app.address), hermes_home=home, user_id=unique_user())
        p.writer.put("POST", "/api/v1/feedback", {"used": ["m1"]})
        self.assertTrue(p.writer.flush(15), "a write refused for longer than the window held up the queue")
        self.assertEqual([s for s, _ in app.seen], ["/api/v1/add"] * 3 + ["/api/v1/feedback"])
        self.assertEqual(p.writer.sent, 2, "the write whose refusal no longer counted was not tried again")

    def test_a_passing_fault_is_waited_out_and_a_lasting_one_drops_the_write(self):
        # A 500 is tried again for RETRY_STATUS_WINDOW (a passing fault
        # passes), however many times; a write still refused after it is
        # dropped, so it cannot hold up the writes behind it for ever.
        from hyatlas import writer
        saved = writer.RETRY_FIRST, writer.RETRY_MAX, writer.RETRY_STATUS_WINDOW
        self.addCleanup(lambda: (setattr(writer, "RETRY_FIRST", saved[0]), setattr(writer, "RETRY_MAX", saved[1]),
                                 setattr(writer, "RETRY_STATUS_WINDOW", saved[2])))
        writer.RETRY_FIRST, writer.RETRY_MAX = 0.01, 0.02
        fault = (500, {"code": "internal", "error": "embedding failed"})
        for name, window, sent in (("passing", 60.0, 2), ("lasting", 0.2, 1)):
            with self.subTest(name):
                writer.RETRY_STATUS_WINDOW = window
                replies = [fault] * 20 + [(200, {"success": True})] if name == "passing" else [fault] * 1000
                app = ScriptedApp({"/api/v1/add": replies, "/api/v1/feedback": [(200, {"success": True})]})
                self.addCleanup(app.close)
                p = new_provider(self, plugin_dir=plugin_dir_for(app.address), user_id=unique_user())
                p.writer.put("POST", "/api/v1/add", {"text": "written during a fault"})
                p.writer.put("POST", "/api/v1/feedback", {"used": ["m1"]})
                self.assertTrue(p.writer.flush(15))
                self.assertEqual(p.writer.sent, sent)
                self.assertEqual(app.seen[-1][0], "/api/v1/feedback", "the write behind it was never sent")


class AutoStart(unittest.TestCase):
    def test_starts_the_binary_with_an_allow_listed_environment(self):
        d = tempfile.mkdtemp(prefix="hyatlas-autostart-")
        marker = os.path.join(d, "env.txt")
        script = os.path.join(d, "fake-hyatlas")
        with open(script, "w") as f:
            f.write(f"#!/bin/sh\nenv > {marker}.tmp\necho \"$@\" >> {marker}.tmp\nmv {marker}.tmp {marker}\n")
        os.chmod(script, os.stat(script).st_mode | stat.S_IXUSR)
        home = tempfile.mkdtemp(prefix="hermes-auto-")
        with open(os.path.join(home, "hyatlas.json"), "w") as f:
            json.dump({"auto_start": True, "binary_path": script}, f)
        os.environ["OPENAI_API_KEY"] = SECRET
        os.environ["HYATLAS_MODE"] = "lite"
        try:
            new_provider(self, plugin_dir=plugin_dir_for(f"http://127.0.0.1:{closed_port()}"), hermes_home=home)
        finally:
            del os.environ["OPENAI_API_KEY"], os.environ["HYATLAS_MODE"]
        for _ in range(100):
            if os.path.exists(marker):
                break
            time.sleep(0.05)
        with open(marker) as f:
            env = f.read()
        self.assertIn("HYATLAS_MODE=lite", env)
        self.assertIn("serve", env.splitlines()[-1])
        self.assertNotIn(SECRET, env)
        self.assertNotIn("HERMES_HOME=", env)
        self.assertTrue(os.path.exists(os.path.join(home, "hyatlas", "hyatlas.log")))  # the plugin's folder, which disconnecting deletes
        self.assertFalse(os.path.exists(os.path.join(home, "logs")), "the log went into Hermes's own logs folder")
        # A second session moments later does not start another.
        os.remove(marker)
        new_provider(self, plugin_dir=plugin_dir_for(f"http://127.0.0.1:{closed_port()}"), hermes_home=home)
        time.sleep(0.3)
        self.assertFalse(os.path.exists(marker))


if __name__ == "__main__":
    unittest.main()
