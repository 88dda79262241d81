"""The tools Hermes offers the model, and what each one does.

Every call answers JSON; errors come back as {"error": ...} and never raise.
"""

from __future__ import annotations

import hashlib
import json

from .client import ApiError, Unreachable
from . import text

LAYERS = ["l1_profile", "l2_raw", "l3_fact", "l4_summary", "l5_knowledge", "l6_schema", "l7_intention", "l8_entity"]
CATEGORY_LAYER = {"fact": "l3_fact", "preference": "l1_profile", "goal": "l7_intention"}

SCHEMAS = [
    {
        "name": "hyatlas_search",
        "description": "Search HyAtlas, the user's long-term memory on this machine, for what is known about a topic, "
                       "person, project or date. Use it before saying you don't know something about the user.",
        "parameters": {"type": "object", "properties": {
            "query": {"type": "string", "description": "What to look for, in plain words."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50, "description": "At most this many (8)."},
            "layer": {"type": "string", "enum": LAYERS, "description": "Only this layer."},
        }, "required": ["query"], "additionalProperties": False},
    },
    {
        "name": "hyatlas_remember",
        "description": "Store one durable memory in HyAtlas now, as given: a fact, a preference or a goal of the user.",
        "parameters": {"type": "object", "properties": {
            "text": {"type": "string", "description": "The memory, one self-contained sentence."},
            "category": {"type": "string", "enum": sorted(CATEGORY_LAYER), "description": "fact (default), preference or goal."},
        }, "required": ["text"], "additionalProperties": False},
    },
    {
        "name": "hyatlas_forget",
        "description": "Retire memories in HyAtlas whose text equals (or, with contains, contains) the given text. "
                       "Reversible: the user can restore them in the HyAtlas app.",
        "parameters": {"type": "object", "properties": {
            "text": {"type": "string", "description": "The memory's text, or a distinctive part of it with contains."},
            "contains": {"type": "boolean", "description": "Match memories containing the text (false: equal to it)."},
        }, "required": ["text"], "additionalProperties": False},
    },
    {
        "name": "hyatlas_recent",
        "description": "List the newest memories in HyAtlas.",
        "parameters": {"type": "object", "properties": {
            "limit": {"type": "integer", "minimum": 1, "maximum": 50, "description": "At most this many (10)."},
            "layer": {"type": "string", "enum": LAYERS, "description": "Only this layer."},
        }, "additionalProperties": False},
    },
    {
        "name": "hyatlas_status",
        "description": "Whether HyAtlas is running, how many memories it holds, and whether writes are waiting.",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
    },
]
NAMES = [s["name"] for s in SCHEMAS]


class ToolError(Exception):
    pass


def _str(args: dict, key: str, required: bool = False) -> str:
    v = args.get(key)
    if v is None:
        if required:
            raise ToolError(f"{key} is required")
        return ""
    if not isinstance(v, str):
        raise ToolError(f"{key} must be a string")
    if required and not v.strip():
        raise ToolError(f"{key} must not be empty")
    return v.strip()


def _int(args: dict, key: str, default: int, lo: int, hi: int) -> int:
    v = args.get(key)
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, (int, float)) or int(v) != v:
        raise ToolError(f"{key} must be a whole number")
    if not lo <= v <= hi:
        raise ToolError(f"{key} must be from {lo} to {hi}")
    return int(v)


def _layer(args: dict) -> str:
    layer = _str(args, "layer")
    if layer and layer not in LAYERS:
        raise ToolError(f"layer must be one of {', '.join(LAYERS)}")
    return layer


def call(provider, name: str, args) -> str:
    """Runs tool name for provider; always returns a JSON string."""
    try:
        if not isinstance(args, dict):
            raise ToolError("arguments must be a JSON object")
        unknown = set(args) - set(next((s["parameters"]["properties"] for s in SCHEMAS if s["name"] == name), {}))
        if name not in NAMES:
            raise ToolError(f"unknown tool {name!r}")
        if unknown:
            raise ToolError(f"unknown argument(s): {', '.join(sorted(unknown))}")
        return json.dumps(_dispatch(provider, name, args), ensure_ascii=False)
    except ToolError as e:
        return json.dumps({"error": str(e)})
    except Unreachable as e:
        provider.health.failed(str(e))
        return json.dumps({"error": "HyAtlas is not running; memories are unavailable right now"})
    except ApiError as e:
        return json.dumps({"error": e.message, "code": e.code})
    except Exception as e:  # a tool never raises into Hermes
        return json.dumps({"error": f"HyAtlas tool failed: {type(e).__name__}"})


REMEMBER_HOPS = 4  # retired rows a remember steps past before it stores anew


def remember_request_id(owner: dict, layer: str, text: str) -> str:
    """The request id of hyatlas_remember: the same owner, layer and text
    (spacing collapsed, which is how the text is sent) give the same id,
    so a call the model makes again because the answer was lost (or makes
    twice) gets the first row, never a second one."""
    key = "\0".join(("hyatlas_remember", str(owner.get("user_id", "")), str(owner.get("agent_id", "")), layer, text))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _remember(p, owner: dict, t: str, layer: str, category: str) -> dict:
    """Stores t once. A repeat gets the row its request id stored first;
    when that row was retired since (forgotten), the text is stored again
    under an id made from the retired row's, which is as deterministic, so
    a lost answer of that write is not stored twice either."""
    rid = remember_request_id(owner, layer, t)
    for _ in range(REMEMBER_HOPS):
        m = p.client.request("POST", "/api/v1/memories", dict(owner, content=t, layer=layer, category=category,
                                                              source="hermes:tool", request_id=rid))
        if not m.get("retired_at"):
            return m
        rid = hashlib.sha256(f"{rid}\0{m.get('memory_id') or m.get('id')}".encode("utf-8")).hexdigest()
    raise ToolError("HyAtlas holds this text only as memories forgotten since; restore one in the HyAtlas app")


def _dispatch(p, name: str, args: dict):
    owner = p.owner()
    if name == "hyatlas_search":
        query = _str(args, "query", True)
        body = dict(owner, query=query, limit=_int(args, "limit", 8, 1, 50), session_id=p.session_id)
        if _layer(args):
            body["layer"] = _layer(args)
        reply = p.client.request("POST", "/api/v1/search", body)
        p.health.ok()
        return {"results": [{"channel": ch, "id": h.get("memory_id"), "content": h.get("content"),
                             "layer": h.get("layer"), "score": h.get("score"), "date": text._date(h)}
                            for ch, h in text.hits_of(reply)]}
    if name == "hyatlas_recent":
        q = dict(owner, limit=_int(args, "limit", 10, 1, 50), layer=_layer(args))
        reply = p.client.request("GET", "/api/v1/list", query=q)
        p.health.ok()
        return {"total": reply.get("total", 0), "memories": [
            {"id": m.get("memory_id") or m.get("id"), "content": m.get("content"), "layer": m.get("layer"),
             "date": text._date(m)} for m in reply.get("memories") or []]}
    if name == "hyatlas_status":
        st = p.client.request("GET", "/api/v1/status", timeout=2.0)
        p.health.ok()
        return {"running": True, "version": st.get("version"), "memories": sum((st.get("layers") or {}).values()),
                "extraction": st.get("llm"), "mode": st.get("mode"), "writes_waiting": p.writer.pending()}
    if not p.writes:
        raise ToolError("this Hermes context is read-only for memory (a subagent, cron or flush run)")
    if name == "hyatlas_remember":
        t = " ".join(_str(args, "text", True).split())
        category = _str(args, "category") or "fact"
        if category not in CATEGORY_LAYER:
            raise ToolError("category must be fact, preference or goal")
        m = _remember(p, owner, t, CATEGORY_LAYER[category], category)
        p.health.ok()
        return {"remembered": True, "id": m.get("memory_id") or m.get("id")}
    t = _str(args, "text", True)
    contains = args.get("contains", False)
    if not isinstance(contains, bool):
        raise ToolError("contains must be true or false")
    r = p.client.request("POST", "/api/v1/forget", dict(owner, text=t, contains=contains,
                                                        reason="forgotten by Hermes (hyatlas_forget)"))
    p.health.ok()
    return {"forgotten": r.get("forgotten", 0), "ids": r.get("memory_ids", []),
            "note": "reversible: restore them in the HyAtlas app"}
