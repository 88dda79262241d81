"""The plugin's own settings: defaults, then $HERMES_HOME/hyatlas.json.

There are no secrets here: the app's token stays in the app's config
directory and is read from there on each call.
"""

from __future__ import annotations

import json
import os
import tempfile

from .client import read_json

FILE = "hyatlas.json"

# key: (type, default, label, description)
FIELDS = {
    "user_id": ("text", "", "User id",
                "Whose memories these are when Hermes does not say (a gateway user id wins). Empty: 'default'."),
    "prefetch_timeout": ("number", 3.0, "Recall timeout (s)",
                         "How long a recall before a turn may take (0.2-7.5 s; Hermes gives up at 8 s)."),
    "recall_limit": ("number", 8, "Memories per recall", "How many memories a recall brings (1-30)."),
    "auto_start": ("boolean", False, "Start HyAtlas if it is not running",
                   "Start `hyatlas serve` in the background when a session begins and the app is not running."),
    "binary_path": ("text", "", "HyAtlas program",
                    "The hyatlas program for auto start (empty: the one the app recorded, else PATH)."),
}

LIMITS = {"prefetch_timeout": (0.2, 7.5), "recall_limit": (1, 30)}

# "all" is no owner in HyAtlas (its graph views read it as "every user or
# agent", and every write naming it is refused), yet a Hermes profile or a
# gateway user may be called so. Such an id is written and read as
# RESERVED_STANDIN instead, a name no Hermes profile can have (profiles
# start with a letter or a digit).
RESERVED_OWNER, RESERVED_STANDIN = "all", "_all"


def owner_id(value: str) -> str:
    """value as an owner id HyAtlas accepts: "all" becomes "_all"."""
    return RESERVED_STANDIN if value == RESERVED_OWNER else value


def coerce(key: str, value):
    """value as the field's type, clamped to its limits; ValueError if it cannot be."""
    kind, default, _, _ = FIELDS[key]
    if value is None or value == "":
        return default
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        s = str(value).strip().lower()
        if s in ("1", "true", "yes", "on"):
            return True
        if s in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"{key} must be true or false")
    if kind == "number":
        n = float(value)
        if n != n:
            raise ValueError(f"{key} must be a number")
        lo, hi = LIMITS[key]
        n = min(max(n, lo), hi)
        return int(n) if isinstance(default, int) else n
    return str(value).strip()


def load(hermes_home: str) -> dict:
    """Defaults overlaid with the valid values of hyatlas.json."""
    out = {k: f[1] for k, f in FIELDS.items()}
    if hermes_home:
        for k, v in read_json(os.path.join(hermes_home, FILE)).items():
            if k in FIELDS:
                try:
                    out[k] = coerce(k, v)
                except (TypeError, ValueError):
                    pass
    return out


def save(values: dict, hermes_home: str) -> dict:
    """Writes the known, valid, non-secret values to hyatlas.json (mode 0600)."""
    clean = {}
    for k, v in (values or {}).items():
        if k in FIELDS:
            clean[k] = coerce(k, v)
    os.makedirs(hermes_home, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".hyatlas.", dir=hermes_home)
    try:
        os.chmod(tmp, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(clean, f, indent=2)
            f.write("\n")
        os.replace(tmp, os.path.join(hermes_home, FILE))
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return clean


def schema() -> list[dict]:
    """The fields in the shape of MemoryProvider.get_config_schema."""
    return [
        {"key": k, "description": f[3], "label": f[2], "type": "integer" if isinstance(f[1], int) and f[0] == "number"
         else f[0], "default": f[1], "secret": False, "required": False}
        | ({"minimum": LIMITS[k][0], "maximum": LIMITS[k][1]} if k in LIMITS else {})
        for k, f in FIELDS.items()
    ]
