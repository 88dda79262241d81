"""A turn, or a copy of a Hermes memory-tool write, whose answer was lost
(HyAtlas stopped after storing it) is sent again and stored once."""

from __future__ import annotations

import http.server
import json
import threading
import unittest

from helpers import TOKEN, api, hyatlas, live_rows, new_provider, plugin_dir_for, unique_user


class LosingProxy:
    """Passes the plugin's requests to the real HyAtlas, but hangs up
    without answering the first write, after HyAtlas stored it: as when
    HyAtlas stops between storing a turn and answering it."""

    def __init__(self, path="/api/v1/add"):
        self.writes = 0
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path.startswith("/proof"):
                    self.reply({"proof": hyatlas.client.proof(TOKEN, self.path.split("nonce=", 1)[-1])})
                    return
                answer = api(self.command, self.path, json.loads(body) if body else None)
                if self.path == path:
                    proxy.writes += 1
                    if proxy.writes == 1:
                        self.close_connection = True  # stored, never answered
                        return
                self.reply(answer)

            do_GET = do_POST

            def reply(self, obj):
                raw = json.dumps(obj).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.address = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class LostAnswers(unittest.TestCase):
    def test_a_turn_sent_again_after_a_lost_answer_is_stored_once(self):
        proxy = LosingProxy()
        self.addCleanup(proxy.close)
        user = unique_user()
        p = new_provider(self, plugin_dir=plugin_dir_for(proxy.address), user_id=user)
        p.sync_turn("Lost answer test: the canoe is red.", "Red canoe noted.", session_id="lost")
        self.assertTrue(p.writer.flush(30))
        self.assertEqual(proxy.writes, 2, "the write whose answer was lost was not sent again")
        rows = live_rows(user, "l2_raw")
        self.assertEqual(len(rows), 1, f"the turn was stored {len(rows)} times")

    def test_a_memory_tool_write_sent_again_after_a_lost_answer_is_stored_once(self):
        proxy = LosingProxy("/api/v1/memories")
        self.addCleanup(proxy.close)
        user = unique_user()
        p = new_provider(self, plugin_dir=plugin_dir_for(proxy.address), user_id=user)
        p.on_memory_write("add", "user", "Lost answer test: prefers dark roast coffee", {})
        self.assertTrue(p.writer.flush(30))
        self.assertEqual(proxy.writes, 2, "the write whose answer was lost was not sent again")
        rows = [r for r in live_rows(user, "l1_profile") if "dark roast" in r.get("content", "")]
        self.assertEqual(len(rows), 1, f"the memory-tool write was stored {len(rows)} times")

    def test_remember_called_again_after_a_lost_answer_is_stored_once(self):
        proxy = LosingProxy("/api/v1/memories")
        self.addCleanup(proxy.close)
        user = unique_user()
        p = new_provider(self, plugin_dir=plugin_dir_for(proxy.address), user_id=user)
        args = {"text": "Lost answer test: the user's boat is called Marlin", "category": "fact"}
        first = json.loads(p.handle_tool_call("hyatlas_remember", args))
        self.assertIn("error", first)  # the model is told it failed ...
        second = json.loads(p.handle_tool_call("hyatlas_remember", args))  # ... and calls it again
        self.assertTrue(second.get("remembered"))
        rows = [r for r in live_rows(user) if "Marlin" in r["content"]]
        self.assertEqual(len(rows), 1, f"stored {len(rows)} times")
        self.assertEqual(rows[0]["memory_id"], second["id"])

    def test_feedback_sent_again_after_a_lost_answer_is_counted_once(self):
        user = unique_user()
        stored = api("POST", "/api/v1/memories", {"content": "Lost answer test: the kayak is yellow",
                                                  "layer": "l3_fact", "user_id": user})
        proxy = LosingProxy("/api/v1/feedback")
        self.addCleanup(proxy.close)
        p = new_provider(self, plugin_dir=plugin_dir_for(proxy.address), user_id=user)
        with p._lock:
            p._last["fb"] = ("", {stored["memory_id"]: "Lost answer test: the kayak is yellow"}, True, 0)  # handed to Hermes
        p.sync_turn("What colour is the kayak?", "Lost answer test noted: the kayak is yellow.", session_id="fb")
        self.assertTrue(p.writer.flush(30))
        self.assertEqual(proxy.writes, 2, "the feedback whose answer was lost was not sent again")
        row = api("GET", "/api/v1/memories/" + stored["memory_id"], None)
        self.assertEqual(row["use_count"], 1,
                         "the feedback was counted twice")


if __name__ == "__main__":
    unittest.main()
