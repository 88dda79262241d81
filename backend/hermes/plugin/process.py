"""Optional auto start: run `hyatlas serve` in the background when a
session begins and the app is not running (setting auto_start).

The child gets an allow-listed environment only (OS basics, locale, TLS
certificate paths, proxies' NO_PROXY and HYATLAS_*), so none of Hermes's
secrets reach it. It is never stopped by the plugin.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

ALLOWED = {
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TZ", "TMPDIR",
    "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "DBUS_SESSION_BUS_ADDRESS",
    "SSL_CERT_FILE", "SSL_CERT_DIR", "NO_PROXY", "no_proxy",
    "USERPROFILE", "SYSTEMROOT", "WINDIR", "TEMP", "TMP", "APPDATA", "LOCALAPPDATA", "PROGRAMDATA",
}
START_GAP = 30.0  # seconds between two start attempts from any session


def child_env(environ=None) -> dict:
    env = os.environ if environ is None else environ
    return {k: v for k, v in env.items() if k in ALLOWED or k.startswith("HYATLAS_")}


def find_binary(setting: str, discovery: dict) -> str:
    for cand in (setting, str(discovery.get("binary") or "")):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return shutil.which("hyatlas") or ""


def start(hermes_home: str, setting: str, discovery: dict) -> str:
    """Starts the server unless one was started in the last START_GAP
    seconds; returns what happened, for the log."""
    binary = find_binary(setting, discovery)
    if not binary:
        return "auto start: no hyatlas program found (set binary_path)"
    # The plugin's own folder in the Hermes home (the outbox's too), which
    # disconnecting HyAtlas deletes; never Hermes's logs folder.
    logs = os.path.join(hermes_home or ".", "hyatlas")
    os.makedirs(logs, mode=0o700, exist_ok=True)
    stamp = os.path.join(logs, "hyatlas.start")
    try:
        if time.time() - os.path.getmtime(stamp) < START_GAP:
            return "auto start: already started moments ago"
    except OSError:
        pass
    with open(stamp, "w", encoding="utf-8") as f:
        f.write(str(os.getpid()))
    kwargs = {}
    if sys.platform == "win32":
        kwargs["creationflags"] = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
    else:
        kwargs["start_new_session"] = True
    with open(os.path.join(logs, "hyatlas.log"), "ab") as out:
        subprocess.Popen([binary, "serve"], env=child_env(), stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                         cwd=os.path.dirname(binary) or None, close_fds=True, **kwargs)
    return f"auto start: started {binary} serve"
