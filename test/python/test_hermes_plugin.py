"""Unit tests of tiergate's Hermes plugin (hermes/tiergate), without Hermes: run by test/unit/hermes-python.

Each hook fails open (returns None, raises nothing); completions reach tiergate's spool as one 0600 JSON line with
the outcome tokens and never the child's text; a link in the spool's place is never followed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import stat
import sys
import tempfile
import time
import unittest
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "hermes" / "tiergate" / "__init__.py"


def load() -> Any:
    spec = importlib.util.spec_from_file_location(f"tiergate_plugin_{time.time_ns()}", PLUGIN)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Ctx:
    def __init__(self) -> None:
        self.hooks: dict[str, Any] = {}
        self.middleware: dict[str, Any] = {}

    def register_hook(self, name: str, cb: Any) -> None:
        self.hooks[name] = cb

    def register_middleware(self, kind: str, cb: Any) -> None:
        self.middleware[kind] = cb


class PluginTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="tg-hermes-py-"))
        self.old_env = dict(os.environ)
        os.environ["TIERGATE_HOME"] = str(self.tmp / "tg")
        self.mod = load()

    def tearDown(self) -> None:
        os.environ.clear()
        os.environ.update(self.old_env)

    def spool_lines(self) -> list[dict[str, Any]]:
        d = self.tmp / "tg" / "data" / "spool"
        return [json.loads(line) for f in sorted(d.glob("*.jsonl")) for line in f.read_text().splitlines()]

    def test_register_wires_every_hook_and_the_middleware(self) -> None:
        ctx = Ctx()
        self.mod.register(ctx)
        self.assertEqual(
            set(ctx.hooks),
            {
                "on_session_start",
                "pre_tool_call",
                "subagent_start",
                "post_api_request",
                "subagent_stop",
                "on_session_finalize",
            },
        )
        self.assertEqual(set(ctx.middleware), {"llm_request"})

    def test_pre_tool_call_fails_open_without_node(self) -> None:
        self.mod._HERE = self.tmp
        (self.tmp / "tiergate.json").write_text(json.dumps({"node": str(self.tmp / "missing"), "hook": "x.cjs"}))
        t0 = time.monotonic()
        self.assertIsNone(self.mod.pre_tool_call(tool_name="delegate_task", args={"goal": "g"}, session_id="s"))
        self.assertLess(time.monotonic() - t0, 2)

    def test_pre_tool_call_fails_open_on_a_hung_engine(self) -> None:
        self.mod._HERE = self.tmp
        self.mod.DISPATCH_TIMEOUT_S = 0.5
        hang = self.tmp / "hang.sh"
        hang.write_text("#!/bin/sh\nsleep 5\n")
        hang.chmod(0o700)
        (self.tmp / "tiergate.json").write_text(json.dumps({"node": str(hang), "hook": "x"}))
        t0 = time.monotonic()
        self.assertIsNone(self.mod.pre_tool_call(tool_name="delegate_task", args={}, session_id="s"))
        self.assertLess(time.monotonic() - t0, 3)

    def test_pre_tool_call_passes_a_block_on_and_ignores_other_tools(self) -> None:
        self.mod._HERE = self.tmp
        fake = self.tmp / "engine.sh"
        fake.write_text('#!/bin/sh\ncat >/dev/null\necho \'{"action":"block","message":"too pricey"}\'\n')
        fake.chmod(0o700)
        (self.tmp / "tiergate.json").write_text(json.dumps({"node": str(fake), "hook": "x"}))
        self.assertEqual(
            self.mod.pre_tool_call(tool_name="delegate_task", args={}, session_id="s"),
            {"action": "block", "message": "too pricey"},
        )
        self.assertIsNone(self.mod.pre_tool_call(tool_name="terminal", args={}, session_id="s"))
        fake.write_text("#!/bin/sh\ncat >/dev/null\necho 'not json'\n")
        self.assertIsNone(self.mod.pre_tool_call(tool_name="delegate_task", args={}, session_id="s"))

    def test_a_correction_rewrites_only_that_childs_requests(self) -> None:
        self.mod._HERE = self.tmp
        fake = self.tmp / "engine.sh"
        fake.write_text('#!/bin/sh\ncat >/dev/null\necho \'{"action":"correct","model":"cheap-1"}\'\n')
        fake.chmod(0o700)
        (self.tmp / "tiergate.json").write_text(json.dumps({"node": str(fake), "hook": "x"}))
        self.assertIsNone(self.mod.pre_tool_call(tool_name="delegate_task", args={}, session_id="p", tool_call_id="c1"))
        self.mod.subagent_start(parent_session_id="p", child_session_id="k")
        req = {"model": "pricey", "messages": []}
        self.assertEqual(
            self.mod.llm_request(request=req, session_id="k"), {"request": {"model": "cheap-1", "messages": []}}
        )
        self.assertIsNone(self.mod.llm_request(request=req, session_id="p"))
        self.assertIsNone(self.mod.llm_request(request="garbage", session_id="k"))
        # Spooled at its start with the call id and the model its requests go out on: state.db keeps "pricey".
        [start] = self.spool_lines()
        self.assertEqual(
            {k: start["observation"][k] for k in ("status", "callId", "servedModel")},
            {"status": "pending", "callId": "c1", "servedModel": "cheap-1"},
        )

    def test_completion_is_spooled_with_tokens_and_no_text(self) -> None:
        self.mod.on_session_start(session_id="p", model="big")
        self.mod.subagent_start(parent_session_id="p", child_session_id="k", child_role="leaf")
        usage = {
            "input_tokens": 300,
            "output_tokens": 30,
            "cache_read_tokens": 5,
            "cache_write_tokens": 0,
            "reasoning_tokens": 2,
        }
        self.mod.post_api_request(session_id="k", model="small", response_model="small-2026", usage=usage)
        self.mod.post_api_request(session_id="k", model="small", response_model="small-2026", usage=usage)
        self.mod.post_api_request(session_id="p", model="big", usage=usage)
        secret = "SECRET child text\nResult: done\nVerified: tests"
        self.mod.subagent_stop(
            parent_session_id="p",
            child_session_id="k",
            child_status="completed",
            child_summary=secret,
            child_role="leaf",
        )
        [start, rec] = self.spool_lines()
        # The child's start, as pending: the same ledger row (agentId) that its end then completes.
        self.assertEqual(
            {k: start["observation"][k] for k in ("status", "agentId", "sessionId", "usage", "servedModel")},
            {"status": "pending", "agentId": "k", "sessionId": "p", "usage": None, "servedModel": None},
        )
        obs = rec["observation"]
        self.assertEqual(rec["type"], "completion")
        self.assertEqual((obs["harness"], obs["sessionId"], obs["agentId"], obs["status"]), ("hermes", "p", "k", "ok"))
        self.assertEqual(obs["servedModel"], "small-2026")
        self.assertEqual(
            obs["usage"],
            {
                "input": 600,
                "output": 60,
                "cacheRead": 10,
                "cacheWrite5m": 0,
                "cacheWrite1h": 0,
                "reasoning": 4,
                "requests": 2,
            },
        )
        self.assertEqual(obs["outcome"], {"result": "done", "verified": "tests", "escalationFrom": None})
        spool = next((self.tmp / "tg" / "data" / "spool").glob("*.jsonl"))
        self.assertNotIn("SECRET", spool.read_text())
        self.assertEqual(stat.S_IMODE(spool.stat().st_mode), 0o600)
        # An unknown child (no subagent_start seen) writes nothing and raises nothing.
        self.assertIsNone(self.mod.subagent_stop(child_session_id="nobody", child_status="completed"))
        self.assertEqual(len(self.spool_lines()), 2)

    def test_a_link_in_the_spool_files_place_is_not_followed(self) -> None:
        d = self.tmp / "tg" / "data" / "spool"
        d.mkdir(parents=True)
        target = self.tmp / "elsewhere"
        target.write_text("")
        (d / self.mod._spool_name).symlink_to(target)
        self.mod.subagent_start(parent_session_id="p", child_session_id="k")
        self.assertIsNone(self.mod.subagent_stop(child_session_id="k", child_status="completed"))
        self.assertEqual(target.read_text(), "")

    def test_a_link_in_the_spool_dirs_place_is_not_followed(self) -> None:
        data = self.tmp / "tg" / "data"
        data.mkdir(parents=True)
        elsewhere = self.tmp / "elsewhere-dir"
        elsewhere.mkdir()
        (data / "spool").symlink_to(elsewhere)
        self.mod.subagent_start(parent_session_id="p", child_session_id="k")
        self.assertIsNone(self.mod.subagent_stop(child_session_id="k", child_status="completed"))
        self.assertEqual(list(elsewhere.iterdir()), [])


if __name__ == "__main__":
    sys.exit(unittest.main())
