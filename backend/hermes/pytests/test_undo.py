"""/undo (Hermes's on_session_switch with rewound=True): the turn taken
back leaves HyAtlas, whether it was sent already or still waits."""

from __future__ import annotations

import glob
import os
import time
import unittest

from helpers import (DISCOVERY, StandInApp, closed_port, live_rows, new_provider, plugin_dir_for, point_at,
                     unique_user)

PIN_TURN = ("Oops, wrong window: my bank card PIN is 4921 and the card is the Kestrel Visa.",
            "I won't store that; you may want to /undo.")


class Undo(unittest.TestCase):
    def test_an_undone_turn_that_was_sent_is_deleted(self):
        user = unique_user()
        p = new_provider(self, user_id=user, session="u1")
        p.sync_turn("The Kestrel booking is for two nights in May.", "Two nights in May, noted.", session_id="u1")
        p.sync_turn(*PIN_TURN, session_id="u1")
        self.assertTrue(p.writer.flush(30))
        self.assertEqual(len(live_rows(user)), 2)
        p.on_session_switch("u1", parent_session_id="", reset=False, rewound=True)  # /undo
        self.assertTrue(p.writer.flush(30))
        rows = live_rows(user)
        self.assertEqual([r for r in rows if "4921" in r["content"]], [], "the turn the user undid stays in memory")
        self.assertEqual(len(rows), 1, "an /undo took more than the last turn")
        got = p.prefetch("Which card should I use for the Kestrel booking?", session_id="u2")  # a later session
        self.assertNotIn("4921", got, "the turn the user undid comes straight back as a recalled memory")
        # A second /undo takes the turn before it.
        p.on_session_switch("u1", rewound=True)
        self.assertTrue(p.writer.flush(30))
        self.assertEqual(live_rows(user), [])

    def test_an_undone_turn_still_waiting_is_never_sent_and_leaves_the_outbox(self):
        user = unique_user()
        plugin = plugin_dir_for(f"http://127.0.0.1:{closed_port()}")  # HyAtlas is down
        p = new_provider(self, plugin_dir=plugin, user_id=user, session="w1")
        p.sync_turn("The Kestrel booking is for two nights in May.", "Two nights in May, noted.", session_id="w1")
        p.sync_turn(*PIN_TURN, session_id="w1")
        p.on_session_switch("w1", rewound=True)  # /undo
        with p.writer._cv:
            waiting = [b.get("text", "") for _, _, _, b in p.writer._q]
        self.assertEqual(len(waiting), 1, waiting)
        self.assertNotIn("4921", waiting[0])
        for path in glob.glob(os.path.join(p.hermes_home, "hyatlas", "outbox", "*")):
            with open(path, encoding="utf-8") as f:
                self.assertNotIn("4921", f.read(), f"the undone turn's text stays on disk in {path}")
        point_at(plugin, DISCOVERY["address"])  # HyAtlas is back
        self.assertTrue(p.writer.flush(30))
        rows = live_rows(user)
        self.assertEqual(len(rows), 1, rows)
        self.assertNotIn("4921", rows[0]["content"])

    def test_a_turn_undone_while_it_is_being_sent_is_deleted_once_stored(self):
        app = StoringApp()
        self.addCleanup(app.close)
        app.delay = 1.0
        p = new_provider(self, plugin_dir=plugin_dir_for(app.address), user_id=unique_user(), session="f1")
        p.sync_turn(*PIN_TURN, session_id="f1")
        deadline = time.monotonic() + 10
        while not app.seen and time.monotonic() < deadline:  # the write is on its way
            time.sleep(0.01)
        p.on_session_switch("f1", rewound=True)  # /undo
        self.assertTrue(p.writer.flush(30))
        self.assertEqual([s[0] for s in app.seen], ["/api/v1/add", "/api/v1/memories/m-stored-1"])
        self.assertEqual(app.methods, ["POST", "DELETE"])


class StoringApp(StandInApp):
    """A stand-in app that stores every add as m-stored-1."""

    def __init__(self):
        self.methods = []
        super().__init__()

    def respond(self, handler, path):
        self.methods.append(handler.command)
        super().respond(handler, path)

    def answer(self, path):
        return 200, {"success": True, "memory_id": "m-stored-1"} if path == "/api/v1/add" else {"deleted": True}


if __name__ == "__main__":
    unittest.main()
