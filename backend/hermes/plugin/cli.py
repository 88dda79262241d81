"""`hermes hyatlas status|search|recent`: look at HyAtlas from the Hermes CLI."""

from __future__ import annotations

import json
import os
import sys

from . import settings
from .client import ApiError, Client, Unreachable, read_json

HERE = os.path.dirname(os.path.abspath(__file__))


def register_cli(subparser) -> None:
    """Builds `hermes hyatlas ...` (subparser is the parser of `hermes hyatlas`)."""
    subs = subparser.add_subparsers(dest="hyatlas_command")
    status = subs.add_parser("status", help="whether the HyAtlas app answers, and how many memories it holds")
    search = subs.add_parser("search", help="recall memories about a query")
    search.add_argument("query", nargs="+")
    search.add_argument("--limit", type=int, default=8)
    recent = subs.add_parser("recent", help="the newest memories")
    recent.add_argument("--limit", type=int, default=10)
    for p in (status, search, recent):
        p.add_argument("--user", default="", help="whose memories (default: the plugin's user_id or 'default')")
        p.add_argument("--json", action="store_true", help="print JSON")
    subparser.set_defaults(func=run)


def _client() -> Client:
    return Client(str(read_json(os.path.join(HERE, "connection.json")).get("discovery") or ""))


def _home() -> str:
    """Hermes's home: HERMES_HOME when Hermes set it, else the home this
    plugin is installed in (<home>/plugins/hyatlas)."""
    return os.environ.get("HERMES_HOME") or os.path.dirname(os.path.dirname(HERE))


def _user(args) -> str:
    if getattr(args, "user", ""):
        return settings.owner_id(args.user)
    return settings.owner_id(str(read_json(os.path.join(_home(), "hyatlas.json")).get("user_id") or "default"))


def run(args, out=None) -> int:
    """Runs the parsed command; returns the exit status (0 ok, 1 failed, 2 usage)."""
    out = out or sys.stdout
    cmd = getattr(args, "hyatlas_command", None) or "status"
    c = _client()
    try:
        if cmd == "status":
            st = c.request("GET", "/api/v1/status", timeout=3.0)
            reply = {"running": True, "version": st.get("version"), "memories": sum((st.get("layers") or {}).values()),
                     "extraction": st.get("llm"), "mode": st.get("mode"), "address": c.discovery().get("address")}
            text = (f"HyAtlas {reply['version']} is running at {reply['address']}: {reply['memories']} memories, "
                    f"extraction {reply['extraction']}.")
        elif cmd == "search":
            if not 1 <= args.limit <= 50:
                print("hermes hyatlas: --limit must be from 1 to 50", file=sys.stderr)
                return 2
            # Every agent of the user, as `recent` lists them: the provider
            # writes under Hermes's agent identity, which the CLI is not told.
            reply = c.request("POST", "/api/v1/search", {"query": " ".join(args.query), "limit": args.limit,
                                                         "user_id": _user(args)})
            from .text import format_recall

            text = format_recall(" ".join(args.query), reply)[0] or "Nothing relevant remembered."
        else:
            if not 1 <= args.limit <= 50:
                print("hermes hyatlas: --limit must be from 1 to 50", file=sys.stderr)
                return 2
            reply = c.request("GET", "/api/v1/list", query={"user_id": _user(args), "limit": args.limit})
            rows = reply.get("memories") or []
            text = "\n".join(f"- {m.get('layer')}: {m.get('content')}" for m in rows) or "No memories yet."
    except Unreachable as e:
        print(f"hermes hyatlas: {e}", file=sys.stderr)
        return 1
    except ApiError as e:
        print(f"hermes hyatlas: {e.message}", file=sys.stderr)
        return 1
    print(json.dumps(reply, indent=2) if getattr(args, "json", False) else text, file=out)
    return 0
