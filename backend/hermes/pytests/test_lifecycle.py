"""What a user of Hermes meets over time: memories they add in the app,
Hermes rebuilding its agents, sessions taken up again, languages written
without spaces, an answer that is not HTTP."""

from __future__ import annotations

import gc
import json
import os
import socket
import threading
import time
import unittest

from helpers import PLUGIN, ScriptedApp, api, hyatlas, new_provider, plugin_dir_for, unique_user


class AppMemories(unittest.TestCase):
    # A memory the user adds in the app (the Atlas form, `hyatlas remember`:
    # no agent) is theirs and every one of their agents' to recall: it is
    # in Hermes's prompt block, its recall before a turn and hyatlas_search.
    def test_memories_added_in_the_app_reach_hermes(self):
        user = unique_user()
        # Exactly what the Atlas form and `hyatlas remember` send: no agent.
        api("POST", "/api/v1/memories", {"content": "Always answer in British English", "strength": 0.95,
                                         "layer": "l6_schema", "user_id": user})
        api("POST", "/api/v1/memories", {"content": "The user's cat is named Biscuit", "user_id": user})
        p = new_provider(self, user_id=user, agent_identity="hermes")
        self.assertIn("Always answer in British English", p.system_prompt_block(),
                      "a strong memory added in the app is not in Hermes's prompt block")
        self.assertIn("Biscuit", p.prefetch("What is my cat called?", session_id="s1"),
                      "a memory added in the app is not recalled before a turn")
        hits = json.loads(p.handle_tool_call("hyatlas_search", {"query": "what is my cat called"}))
        self.assertIn("Biscuit", json.dumps(hits), "hyatlas_search does not find it either")


class DroppedProviders(unittest.TestCase):
    # Hermes does not always call shutdown() on a provider it drops (the
    # gateway's soft eviction, Desktop and TUI session rebuilds): an idle
    # provider holds no open file and no thread, so a long-running gateway
    # never runs out of file descriptors.
    def test_providers_hermes_drops_without_shutdown_do_not_leak(self):
        home = os.path.join(os.environ["HERMES_HOME"], "profiles", "dropped")
        os.makedirs(home, exist_ok=True)
        user = unique_user()

        def fds():
            return len(os.listdir("/proc/self/fd"))

        gc.collect()
        fds0, threads0 = fds(), threading.active_count()
        for i in range(40):
            p = hyatlas.HyatlasMemoryProvider(PLUGIN)
            p.initialize(f"leak-{i}", hermes_home=home, user_id=user, agent_context="primary", platform="telegram")
            p.sync_turn(f"Leak test turn {i}: the plant on the desk is a fern.", "Fern noted.", session_id=f"leak-{i}")
            self.assertTrue(p.writer.flush(10))
            del p  # the gateway evicts the agent; shutdown() is never called
        gc.collect()
        time.sleep(0.2)
        self.assertLess(fds() - fds0, 5, f"open files grew from {fds0} to {fds()} over 40 dropped providers")
        self.assertLess(threading.active_count() - threads0, 5,
                        f"threads grew from {threads0} to {threading.active_count()} over 40 dropped providers")


class ResumedSessions(unittest.TestCase):
    # A session ended (/new), taken up again (/resume) and ended again
    # sends its second end too, so its episode closes and the next
    # session's work is not folded into it.
    def test_a_resumed_session_is_ended_again(self):
        app = ScriptedApp({})
        self.addCleanup(app.close)
        p = new_provider(self, plugin_dir=plugin_dir_for(app.address), user_id=unique_user(), session="A")
        p.sync_turn("We plan the Kestrel migration today.", "Plan noted.", session_id="A")
        p.on_session_end([])  # /new: A ends ...
        p.on_session_switch("B", parent_session_id="A", reset=True)  # ... once
        p.on_session_switch("A", parent_session_id="B")  # /resume A
        p.sync_turn("Back to Kestrel: the cutover is on Friday.", "Friday cutover noted.", session_id="A")
        p.on_session_end([])  # /new again: A's resumed work ends
        p.on_session_switch("C", parent_session_id="A", reset=True)
        self.assertTrue(p.writer.flush(10))
        ends = [path for path, _ in app.seen if path == "/api/v1/session/end"]
        self.assertEqual(len(ends), 2, f"session ends sent: {len(ends)}; the resumed session A was never ended")


class Languages(unittest.TestCase):
    # A reply that uses a recalled memory strengthens it in languages
    # written without spaces too: Chinese text is compared by character
    # pairs, not as whole clauses.
    def test_a_chinese_reply_that_uses_a_memory_strengthens_it(self):
        hit = {"memory_id": "m-zh-1", "content": "用户住在柏林，在一家创业公司做后端开发。", "score": 0.9,
               "layer": "l1_profile"}
        app = ScriptedApp({"/api/v1/search": [(200, {"memories": {"profile": [hit]}, "order": ["profile"]})]})
        self.addCleanup(app.close)
        p = new_provider(self, plugin_dir=plugin_dir_for(app.address), user_id=unique_user(), session="zh")
        self.assertIn("柏林", p.prefetch("我住在哪里？做什么工作？", session_id="zh"))
        p.sync_turn("我住在哪里？做什么工作？", "你住在柏林，在一家创业公司做后端开发。", session_id="zh")
        self.assertTrue(p.writer.flush(10))
        self.assertIn("/api/v1/feedback", [path for path, _ in app.seen],
                      "a reply that repeats the recalled memory word for word sent no feedback")


class NotHTTP(unittest.TestCase):
    # Whatever answers on the port without speaking HTTP (a bad status
    # line) is HyAtlas being unreachable: nothing raises into Hermes and the
    # turn waits.
    def test_a_malformed_http_answer_neither_raises_nor_drops_the_turn(self):
        srv = socket.socket()
        srv.bind(("127.0.0.1", 0))
        srv.listen(16)
        self.addCleanup(srv.close)

        def serve():
            while True:
                try:
                    c, _ = srv.accept()
                except OSError:
                    return
                try:
                    c.recv(65536)
                    c.sendall(b"garbage\r\n\r\n")
                finally:
                    c.close()

        threading.Thread(target=serve, daemon=True).start()
        address = f"http://127.0.0.1:{srv.getsockname()[1]}"
        p = new_provider(self, plugin_dir=plugin_dir_for(address, auth=False), user_id=unique_user())
        try:
            block = p.system_prompt_block()
        except Exception as e:  # noqa: BLE001 - the point of the test
            self.fail(f"system_prompt_block raised {type(e).__name__} into Hermes")
        self.assertIn("hyatlas_search", block)
        p.sync_turn("Malformed test: the tent is blue.", "Blue tent noted.", session_id="m")
        p.writer.flush(1.0)
        self.assertEqual(p.writer.pending(), 1, "the turn was dropped instead of waiting for HyAtlas")


if __name__ == "__main__":
    unittest.main()
