"""A misbehaving LLM endpoint (a real HTTP server on 127.0.0.1): each fault is a bounded retry
or LLMUnavailable with a reason, never another exception, and the key never shows."""
from __future__ import annotations

import json

import pytest

from perfloop.agent.proposers.llm import (
    MAX_ANSWER_BYTES,
    MAX_HTTP_TRIES,
    MAX_TOKENS,
    Endpoint,
    LLMUnavailable,
    chat,
)
from perfloop.agent.redact import redacted_url
from perfloop.tools.change.codemods import NotApplicable
from tests.fake_llm import Reply, ScriptedLLM

KEY = "sk-live-abcdef123456"
GOOD = json.dumps({"summary": "s", "edits": [{"file": "a.py", "search": "x", "replace": "y"}]})
ASK = [{"role": "user", "content": "propose an edit"}]


def ask(server: ScriptedLLM, timeout_s: float = 10.0, key: str | None = KEY, url: str | None = None):
    return chat(Endpoint(url or server.base_url, key, timeout_s), "scripted", ASK)


def test_normal_answer_records_usage_latency_and_sends_max_tokens():
    with ScriptedLLM([GOOD]) as server:
        reply = ask(server)
    assert reply.content == GOOD and reply.finish_reason == "stop"
    assert (reply.prompt_tokens, reply.completion_tokens, reply.http_attempts) == (11, 7, 1)
    assert reply.latency_s >= 0
    body = server.requests[0]["body"]
    assert body["max_tokens"] == MAX_TOKENS and body["temperature"] == 0
    assert server.requests[0]["authorization"] == f"Bearer {KEY}"


def test_non_json_200_is_retried_then_answered():
    with ScriptedLLM([Reply(body=b"<html>502 Bad Gateway</html>"), GOOD]) as server:
        reply = ask(server)
    assert reply.content == GOOD and reply.http_attempts == 2


@pytest.mark.parametrize("body, reason", [
    (b"<html>oops</html>", "body that is not JSON"),
    (json.dumps({"choices": []}).encode(), "without any choice"),
    (json.dumps({"id": "x"}).encode(), "without any choice"),
    (json.dumps([1, 2]).encode(), "without any choice"),
])
def test_garbage_200_is_given_up_after_bounded_tries(body, reason, monkeypatch):
    monkeypatch.setattr("perfloop.agent.proposers.llm._sleep", lambda s: None)  # the backoff is not what is tested
    with ScriptedLLM([Reply(body=body)] * MAX_HTTP_TRIES) as server:
        with pytest.raises(LLMUnavailable, match=reason) as failed:
            ask(server)
    assert len(server.requests) == MAX_HTTP_TRIES
    assert f"gave up after {MAX_HTTP_TRIES} tries" in str(failed.value)
    assert isinstance(failed.value, NotApplicable)  # the optimize node's catch


def test_401_skips_at_once_and_never_shows_the_key():
    echo = json.dumps({"error": f"invalid api key {KEY}"}).encode()
    with ScriptedLLM([Reply(status=401, body=echo)]) as server:
        with pytest.raises(LLMUnavailable, match="refused the credentials") as failed:
            ask(server)
    assert len(server.requests) == 1
    assert KEY not in str(failed.value) and "invalid api key ***" in str(failed.value)


def test_429_waits_for_retry_after_then_succeeds():
    with ScriptedLLM([Reply(status=429, headers={"Retry-After": "1"}, body=b"{}"), GOOD]) as server:
        reply = ask(server)
    first, second = server.requests
    assert reply.http_attempts == 2 and second["at"] - first["at"] >= 0.9


def test_429_asking_for_an_hour_skips_instead_of_stalling():
    with ScriptedLLM([Reply(status=429, headers={"Retry-After": "3600"}, body=b"{}")]) as server:
        with pytest.raises(LLMUnavailable, match="asks to wait 3600 s"):
            ask(server)
    assert len(server.requests) == 1


def test_timeout_is_retried_a_bounded_number_of_times(monkeypatch):
    monkeypatch.setattr("perfloop.agent.proposers.llm._sleep", lambda s: None)
    with ScriptedLLM([Reply(content=GOOD, delay_s=1.0)] * MAX_HTTP_TRIES) as server:
        with pytest.raises(LLMUnavailable, match=r"timed out after 0.2 s \(gave up after 3 tries\)"):
            ask(server, timeout_s=0.2)


def test_two_megabyte_answer_is_dropped():
    huge = GOOD + " " * (2 << 20)
    with ScriptedLLM([huge]) as server:
        with pytest.raises(LLMUnavailable, match="MiB answer, more than the 1 MiB"):
            ask(server)
    assert len(server.requests) == 1 and MAX_ANSWER_BYTES == 1 << 20


def test_refusal_skips_with_the_models_words():
    with ScriptedLLM([Reply(refusal="I can't help with modifying that code.")]) as server:
        with pytest.raises(LLMUnavailable, match="the model refused: I can't help"):
            ask(server)
    assert len(server.requests) == 1


def test_credentials_in_the_base_url_are_used_but_never_shown():
    with ScriptedLLM([Reply(status=403, body=b"forbidden for alice:hunter2")]) as server:
        url = server.base_url.replace("http://", "http://alice:hunter2@")
        with pytest.raises(LLMUnavailable) as failed:
            ask(server, key=None, url=url)
    assert server.requests[0]["authorization"].startswith("Basic ")  # sent as basic auth, not in the URL
    assert "hunter2" not in str(failed.value) and "alice:***" in str(failed.value)
    assert redacted_url(url) == server.base_url.replace("http://", "http://***@")
    assert redacted_url(server.base_url) == server.base_url


def test_unreachable_endpoint_is_a_reason_not_a_traceback(monkeypatch):
    monkeypatch.setattr("perfloop.agent.proposers.llm._sleep", lambda s: None)
    with ScriptedLLM([]) as server:
        url = server.base_url
    with pytest.raises(LLMUnavailable, match="could not reach the LLM endpoint"):
        chat(Endpoint(url, KEY, 2.0), "scripted", ASK)


def _llm_only_repo(root):
    """The tiny pipeline whose only diagnosis (transform_hotspot, num_workers already 2) needs the LLM."""
    from tests.conftest import git, make_repo

    repo = make_repo(root)
    config = repo / "configs" / "train.yaml"
    config.write_text(config.read_text().replace("num_workers: 0", "num_workers: 2"))
    # An early exit the vectoriser must refuse (and a print the memo must, since it keys lists now), and a count of
    # reads on the dataset that the sample caches must refuse (a write to self, then an assert on it that nothing is
    # moved past), so the LLM's remedy is the only one left.
    train = repo / "train.py"
    train.write_text(train.read_text().replace(
        "        for j in range(width):\n",
        "        for j in range(width):\n            if width < 0:\n                print(values)\n                break\n"
    ).replace("    def __getitem__(self, index):\n",
              "    def __getitem__(self, index):\n        self.reads = getattr(self, 'reads', 0) + 1\n"
              "        assert self.reads > 0\n"))
    git(repo, "commit", "-qam", "workers")
    return repo


def test_run_with_a_broken_endpoint_skips_the_llm_remedy_and_exits_0(tmp_path, monkeypatch):
    """The whole CLI: the only diagnosis (transform_hotspot, num_workers already 2) needs the LLM,
    which answers garbage, then no choices, then 401 with the key echoed back."""
    import os

    from tests.conftest import perfloop, user_view

    repo = _llm_only_repo(tmp_path / "repo")
    before = user_view(repo)
    echo = json.dumps({"error": f"invalid key {KEY}"}).encode()
    answers = [Reply(body=b"<html>bad gateway</html>"), Reply(body=b'{"choices": []}'),
               Reply(status=401, body=echo)]
    with ScriptedLLM(answers) as server:
        done = perfloop("run", str(repo), "--auto-approve", "--json", "--llm-base-url", server.base_url,
                        "--llm-model", "scripted", env={**os.environ, "PERFLOOP_LLM_API_KEY": KEY})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["stop_reason"] == "nothing_actionable" and summary["iterations"] == []
    assert len(server.requests) == 3  # non-JSON and empty choices retried; 401 final
    assert "refused the credentials (HTTP 401" in done.stderr
    run_dir = os.path.dirname(summary["audit_log"])
    for name in os.listdir(run_dir):
        path = os.path.join(run_dir, name)
        if os.path.isfile(path):
            with open(path, "rb") as handle:
                assert KEY.encode() not in handle.read(), name
    assert KEY not in done.stdout + done.stderr
    assert user_view(repo) == before


def test_credentials_in_the_base_url_reach_the_server_but_no_file(tmp_path):
    """The whole CLI with --llm-base-url http://alice:SECRET@...: the request carries basic auth, and
    the secret is in no file of the run folder (checkpoints included), .git/perfloop or perfloop's home."""
    import base64
    import os
    from pathlib import Path

    from tests.conftest import perfloop

    secret = "hunter2-bXk9q"
    repo = _llm_only_repo(tmp_path / "repo")
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if k not in ("PERFLOOP_LLM_API_KEY", "PERFLOOP_LLM_BASIC_AUTH")}
    with ScriptedLLM([Reply(status=403, body=b"no")]) as server:
        url = server.base_url.replace("http://", f"http://alice:{secret}@")
        done = perfloop("run", str(repo), "--auto-approve", "--json", "--llm-base-url", url,
                        "--llm-model", "scripted", env={**env, "PERFLOOP_HOME": str(home)})
    assert done.returncode == 0, done.stderr[-3000:]
    assert server.requests, "the LLM was never asked"
    assert server.requests[0]["authorization"] == "Basic " + base64.b64encode(f"alice:{secret}".encode()).decode()
    assert secret not in done.stdout + done.stderr
    run_dir = Path(json.loads(done.stdout.strip().splitlines()[-1])["audit_log"]).parent
    assert (run_dir / "checkpoints.sqlite").is_file()
    files = [p for root in (repo / ".git" / "perfloop", home) for p in root.rglob("*") if p.is_file()]
    assert run_dir / "checkpoints.sqlite" in files
    assert [str(p) for p in files if secret.encode() in p.read_bytes()] == []
