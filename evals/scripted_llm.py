"""A real HTTP server on 127.0.0.1 speaking the OpenAI chat-completions API, replaying scripted answers.

Each scripted answer is either the assistant's text (a normal 200 reply) or a
``Reply`` describing a misbehaving endpoint: another status, headers (Retry-After),
a raw body (not JSON, no choices, 2 MB), a delay (a timeout), a refusal.
"""
from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable


@dataclass
class Reply:
    """One scripted HTTP answer; fields left at their defaults give a normal chat completion."""

    content: str = ""
    """The assistant's text, when `body` is None."""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    """Raw response body, sent as is instead of a chat completion."""
    delay_s: float = 0.0
    """Seconds to wait before answering (longer than the client's timeout: a timeout)."""
    refusal: str | None = None
    """Sent as message.refusal with empty content, as OpenAI's structured outputs do."""
    finish_reason: str = "stop"
    usage: dict = field(default_factory=lambda: {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18})


class ScriptedLLM:
    """Serve ``answers`` in order to POST /v1/chat/completions; record every request body.

    With ``answer_for`` (request body -> answer), every request is answered by it instead.
    """

    def __init__(self, answers: list[str | Reply], answer_for: Callable[[dict], str | Reply] | None = None) -> None:
        self.answers = list(answers)
        self.answer_for = answer_for
        self.requests: list[dict] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's naming)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append({"path": self.path, "body": body, "at": time.monotonic(),
                                       "authorization": self.headers.get("Authorization")})
                has_answer = bool(owner.answers) or owner.answer_for is not None
                if self.path.rstrip("/") != "/v1/chat/completions" or not has_answer:
                    self.send_response(404 if has_answer else 500)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                answer = owner.answer_for(body) if owner.answer_for else owner.answers.pop(0)
                reply = answer if isinstance(answer, Reply) else Reply(content=answer)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                data = reply.body
                if data is None:
                    message = {"role": "assistant", "content": None if reply.refusal else reply.content}
                    if reply.refusal:
                        message["refusal"] = reply.refusal
                    data = json.dumps({
                        "id": f"chatcmpl-{len(owner.requests)}", "object": "chat.completion",
                        "created": int(time.time()), "model": body["model"],
                        "choices": [{"index": 0, "finish_reason": reply.finish_reason, "message": message}],
                        "usage": reply.usage}).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout, size cap): what the test wants

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> "ScriptedLLM":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
