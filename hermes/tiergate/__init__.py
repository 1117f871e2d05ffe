"""tiergate's Hermes Agent plugin (Hermes 0.19.0; installed by `tiergate install hermes`).

Dispatch: pre_tool_call on delegate_task asks tiergate's engine (`node dist/hook.cjs hermes pre_tool_call`, a short
timeout) and blocks, corrects or lets go. Completion: each child's start (subagent_start, as pending), its API requests
(post_api_request) and its end (subagent_stop) are appended in Python to tiergate's spool; the drain prices them into
the ledger, and `tiergate scan` settles from Hermes' state.db a child whose end never came.

Fail open here, always: Hermes 0.19.0 skips a raising hook, but later Hermes fails *closed* on a raised exception or a
callback slower than 30 s, so every hook catches everything and returns None, and no wait exceeds DISPATCH_TIMEOUT_S.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

DISPATCH_TOOL = "delegate_task"
DISPATCH_TIMEOUT_S = 5.0
FINALIZE_TIMEOUT_S = 5.0
STDOUT_MAX = 64 * 1024
SPOOL_FILE_MAX = 8 * 1024 * 1024
OUTCOME_TAIL = 4096

_HERE = Path(__file__).resolve().parent
_lock = threading.Lock()
# session id -> the model it runs on (on_session_start, post_api_request); a child's is kept apart (_children).
_session_model: dict[str, str] = {}
# parent session id -> (tool_call_id, corrected model or None) of its last delegate_task that went ahead.
_pending: dict[str, tuple[str | None, str | None]] = {}
# child session id -> what its completion needs: parent, call id, corrected model, usage so far, served model.
_children: dict[str, dict[str, Any]] = {}
_spool_name = f"{os.getpid()}-hermes-{int(time.time() * 1000):x}.jsonl"


def _settings() -> dict[str, Any]:
    """tiergate.json beside this file (written by the installer): the node binary and dist/hook.cjs."""
    try:
        with open(_HERE / "tiergate.json", encoding="utf-8") as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except Exception:
        return {}


def _delegation() -> dict[str, Any]:
    """config.yaml's `delegation` block, as Hermes reads it for every delegate_task (0.19.0)."""
    try:
        # Hermes' own reader (the same file, the same defaults); imported late so the unit tests run without Hermes.
        from hermes_cli.config import load_config  # noqa: PLC0415

        block = load_config().get("delegation") or {}
        return block if isinstance(block, dict) else {}
    except Exception:
        return {}


def _str(v: Any) -> str | None:
    return v.strip() if isinstance(v, str) and v.strip() else None


def _ask_engine(event: str, payload: dict[str, Any], timeout: float) -> dict[str, Any] | None:
    s = _settings()
    node, hook = _str(s.get("node")), _str(s.get("hook"))
    if not node or not hook:
        return None
    try:
        run = subprocess.run(
            [node, "--preserve-symlinks-main", hook, "hermes", event],
            input=json.dumps(payload).encode(),
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except Exception:
        return None
    out = run.stdout[:STDOUT_MAX].strip()
    if run.returncode != 0 or not out:
        return None
    answer = json.loads(out)
    return answer if isinstance(answer, dict) else None


def on_session_start(session_id: str = "", model: str = "", **_: Any) -> None:
    try:
        if _str(session_id) and _str(model):
            with _lock:
                _session_model[session_id] = model
    except Exception:
        return


def pre_tool_call(tool_name: str = "", args: Any = None, session_id: str = "", **kw: Any) -> dict[str, str] | None:
    try:
        if tool_name != DISPATCH_TOOL or not isinstance(args, dict) or not _str(session_id):
            return None
        d = _delegation()
        endpoint = _str(d.get("base_url")) or _str(d.get("provider"))
        payload = {
            "hook_event_name": "pre_tool_call",
            "session_id": session_id,
            "tool_name": tool_name,
            "tool_call_id": _str(kw.get("tool_call_id")),
            "args": args,
            "cwd": os.getcwd(),
            "parent_model": _session_model.get(session_id),
            "delegation_model": _str(d.get("model")),
            "delegation_endpoint": endpoint,
        }
        answer = _ask_engine("pre_tool_call", payload, DISPATCH_TIMEOUT_S)
        action = answer.get("action") if answer else None
        if action == "block" and _str(answer.get("message")):  # type: ignore[union-attr]
            return {"action": "block", "message": answer["message"]}  # type: ignore[index]
        corrected = _str(answer.get("model")) if action == "correct" else None  # type: ignore[union-attr]
        with _lock:
            _pending[session_id] = (_str(kw.get("tool_call_id")), corrected)
        return None
    except Exception:
        return None


def subagent_start(parent_session_id: str = "", child_session_id: str = "", **kw: Any) -> None:
    """Marks the child; spools it as pending, so a child whose subagent_stop never comes (a background child cut off by
    a one-shot parent's exit, 0.19.0) keeps its call id and corrected model for `tiergate scan` to settle from state.db,
    where Hermes keeps the configured model name, not the one the middleware sent."""
    try:
        if not _str(child_session_id):
            return
        with _lock:
            call_id, corrected = _pending.get(parent_session_id, (None, None))
            child = _children[child_session_id] = {
                "parent": _str(parent_session_id),
                "call_id": call_id,
                "model": corrected,
                "role": _str(kw.get("child_role")),
                "started": int(time.time() * 1000),
                "served": None,
                "usage": None,
            }
        append_spool(_completion(child_session_id, child, "pending", corrected, None), os.environ)
    except Exception:
        return


def llm_request(request: Any = None, session_id: str = "", **_: Any) -> dict[str, Any] | None:
    """Middleware: a corrected child's API requests go out on the cheaper model (same endpoint, Hermes 0.19.0)."""
    try:
        child = _children.get(session_id)
        if not child or not child["model"] or not isinstance(request, dict):
            return None
        return {"request": {**request, "model": child["model"]}}
    except Exception:
        return None


def _int(v: Any) -> int:
    return v if isinstance(v, int) and v >= 0 else 0


def post_api_request(
    session_id: str = "",
    model: str = "",
    response_model: str = "",
    usage: Any = None,
    **_: Any,
) -> None:
    try:
        with _lock:
            child = _children.get(session_id)
            if child is None:
                if _str(model):
                    _session_model[session_id] = model
                return
            child["served"] = _str(response_model) or _str(model)
            u = usage if isinstance(usage, dict) else {}
            prev = child["usage"] or {
                "input": 0,
                "output": 0,
                "cacheRead": 0,
                "cacheWrite5m": 0,
                "cacheWrite1h": 0,
                "reasoning": 0,
                "requests": 0,
            }
            child["usage"] = {
                "input": prev["input"] + _int(u.get("input_tokens")),
                "output": prev["output"] + _int(u.get("output_tokens")),
                "cacheRead": prev["cacheRead"] + _int(u.get("cache_read_tokens")),
                "cacheWrite5m": prev["cacheWrite5m"] + _int(u.get("cache_write_tokens")),
                "cacheWrite1h": 0,
                "reasoning": prev["reasoning"] + _int(u.get("reasoning_tokens")),
                "requests": prev["requests"] + 1,
            }
    except Exception:
        return


_TOKEN = r"([A-Za-z0-9][A-Za-z0-9_.-]{0,31})"
_DECOR = r"[\s>*_`#-]*"
_RESULT = re.compile(rf"^{_DECOR}result{_DECOR}:{_DECOR}{_TOKEN}", re.I | re.M)
_VERIFIED = re.compile(rf"^{_DECOR}verified{_DECOR}:{_DECOR}{_TOKEN}", re.I | re.M)


def outcome_tokens(text: Any) -> dict[str, str | None]:
    """`Result:` and `Verified:` tokens of the child's final text (src/observer/outcome.ts); the text is dropped."""

    def last(rx: re.Pattern[str], tail: str) -> str | None:
        found = [m.group(1).lower().rstrip(".") for m in rx.finditer(tail)]
        return found[-1] or None if found else None

    tail = text[-OUTCOME_TAIL:] if isinstance(text, str) else ""
    return {
        "result": last(_RESULT, tail),
        "verified": last(_VERIFIED, tail),
        "escalationFrom": None,
    }


_STATUS = {
    "completed": "ok",
    "failed": "error",
    "error": "error",
    "interrupted": "cancelled",
}


def subagent_stop(
    child_session_id: str = "",
    child_status: str = "",
    child_summary: Any = None,
    **kw: Any,
) -> None:
    try:
        with _lock:
            child = _children.pop(child_session_id, None)
        if child is None:
            return
        child["parent"] = child["parent"] or _str(kw.get("parent_session_id"))
        child["role"] = _str(kw.get("child_role")) or child.get("role")
        status = _STATUS.get(child_status, "unknown")
        record = _completion(child_session_id, child, status, child["served"], child_summary)
        append_spool(record, os.environ)
    except Exception:
        return


def _completion(child_id: str, child: dict[str, Any], status: str, served: str | None, text: Any) -> dict[str, Any]:
    """A spool line (src/contracts/spool.ts) for the child: the same ledger row (hermes:agent:<child id>) first as
    pending at its start, then with its usage at its end."""
    return {
        "type": "completion",
        "observation": {
            "kind": "completion",
            "harness": "hermes",
            "sessionId": child["parent"],
            "callId": child["call_id"],
            "agentId": child_id,
            "subagentType": child.get("role"),
            "servedModel": served,
            "usage": child["usage"],
            "status": status,
            "outcome": outcome_tokens(text),
            "startedAt": child["started"],
            "endedAt": child["started"] if status == "pending" else int(time.time() * 1000),
            "usageSource": "hermes-plugin" if child["usage"] else "none",
            "dedupeKey": f"hermes:{child_id}",
        },
        "transcriptPath": None,
    }


def on_session_finalize(session_id: str = "", **_: Any) -> None:
    """A top-level session's end: tiergate drains the spool into the ledger (bounded; never for a child)."""
    try:
        with _lock:
            child = session_id in _children
        if not child:
            _ask_engine(
                "on_session_finalize",
                {"session_id": session_id, "cwd": os.getcwd()},
                FINALIZE_TIMEOUT_S,
            )
    except Exception:
        return


def spool_dir(env: Any) -> Path:
    """src/io/paths.ts dataDir()/spool: TIERGATE_HOME/data, else the XDG data dir."""
    if env.get("TIERGATE_HOME"):
        return Path(env["TIERGATE_HOME"]) / "data" / "spool"
    base = env.get("XDG_DATA_HOME") or str(Path(env.get("HOME") or Path.home()) / ".local" / "share")
    return Path(base) / "tiergate" / "spool"


def _private_dir(path: Path) -> None:
    """Made 0700 if absent; never through a link (O_NOFOLLOW on every component tiergate owns)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    for d in (path.parent, path):
        fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        os.close(fd)


def append_spool(record: dict[str, Any], env: Any) -> None:
    """One JSON line, appended to a regular file of its own (0600), never through a link, never to a FIFO."""
    d = spool_dir(env)
    _private_dir(d)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    fd = os.open(d / _spool_name, flags, 0o600)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > SPOOL_FILE_MAX:
            return
        os.fchmod(fd, 0o600)
        os.write(fd, (json.dumps(record, separators=(",", ":")) + "\n").encode())
    finally:
        os.close(fd)


def register(ctx: Any) -> None:
    for name, cb in (
        ("on_session_start", on_session_start),
        ("pre_tool_call", pre_tool_call),
        ("subagent_start", subagent_start),
        ("post_api_request", post_api_request),
        ("subagent_stop", subagent_stop),
        ("on_session_finalize", on_session_finalize),
    ):
        ctx.register_hook(name, cb)
    ctx.register_middleware("llm_request", llm_request)
