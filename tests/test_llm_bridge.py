"""The prompt bridge (evals/llm_bridge.py): perfloop's real client asks, a file answers, a 503 holds it meanwhile."""
from __future__ import annotations

import json
import threading
import time

from perfloop.agent.proposers.llm import Endpoint, chat
from perfloop.evals.llm_bridge import Bridge


def test_a_question_waits_for_its_answer_file_and_keeps_its_number_across_retries(tmp_path):
    folder = tmp_path / "prompts"
    with Bridge(folder, hold_s=0.4, retry_after_s=0.0) as bridge:
        got: dict = {}
        asker = threading.Thread(target=lambda: got.update(reply=chat(
            Endpoint(bridge.base_url, None, timeout_s=10.0), "bridge", [{"role": "user", "content": "make it fast"}])))
        asker.start()
        prompt = folder / "001.prompt.md"
        for _ in range(100):
            if prompt.exists():
                break
            time.sleep(0.05)
        assert "# user\n\nmake it fast" in prompt.read_text() and "001.answer.md" in prompt.read_text()
        time.sleep(0.6)  # past the hold: the first request was answered 503 and perfloop retried
        partial = folder / "001.answer.md.tmp"
        partial.write_text('{"summary": "x", "edits": []}')
        partial.rename(folder / "001.answer.md")
        asker.join(timeout=20)
    reply = got["reply"]
    assert reply.content == '{"summary": "x", "edits": []}' and reply.http_attempts >= 2
    assert sorted(p.name for p in folder.iterdir()) == ["001.answer.md", "001.prompt.md", "log.jsonl"]
    events = [json.loads(line)["event"] for line in (folder / "log.jsonl").read_text().splitlines()]
    assert events == ["asked", "answered"]
