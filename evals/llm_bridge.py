"""An OpenAI-compatible endpoint that hands perfloop's prompts to whoever answers them, through a folder.

    python -m perfloop.evals.llm_bridge --dir PROMPTS [--port 8765] [--hold 50] [--retry-after 5]

Each question perfloop asks is written to `PROMPTS/NNN.prompt.md` (every message of the
conversation, the model name and the time); its answer is read from `PROMPTS/NNN.answer.md`
once someone (a model behind any tool, or a person) writes it there. Until then the request
is held for `--hold` seconds and then answered 503 with `Retry-After`, so perfloop's client
retries; a retried question keeps its number (questions are numbered by their content). Run
perfloop with a long `--llm-timeout` (more than `--hold`) and point it here:

    perfloop run REPO --llm-base-url http://127.0.0.1:8765/v1 --llm-model bridge --llm-timeout 120
    python -m perfloop.evals --suite blind --llm-base-url http://127.0.0.1:8765/v1 --llm-model bridge \
        --agent-args "--llm-timeout 120"

`PROMPTS/log.jsonl` records each question and answer with their numbers and times, for
reporting who answered and how in evals/RESULTS.md. Write the answer file in one step (write
to NNN.answer.md.tmp, then rename) so a half-written answer is never served.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class Bridge:
    """Serve POST /v1/chat/completions from answer files in `folder`; write each question there first."""

    def __init__(self, folder: Path, port: int = 0, hold_s: float = 50.0, retry_after_s: float = 5.0) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.hold_s, self.retry_after_s = hold_s, retry_after_s
        self._numbers: dict[str, int] = {}
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's naming)
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                if self.path.rstrip("/") != "/v1/chat/completions" or not body.get("messages"):
                    return self._send(404, {"error": {"message": "POST /v1/chat/completions with messages"}})
                number = owner.question(body)
                answer = owner.wait_for(number)
                if answer is None:
                    return self._send(503, {"error": {"message": f"question {number:03d} is waiting for "
                                                                 f"{owner.folder / f'{number:03d}.answer.md'}"}},
                                      {"Retry-After": f"{owner.retry_after_s:g}"})
                owner.log({"event": "answered", "number": number, "chars": len(answer)})
                return self._send(200, {
                    "id": f"bridge-{number:03d}", "object": "chat.completion", "created": int(time.time()),
                    "model": body.get("model", "bridge"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": answer}}],
                    "usage": {"prompt_tokens": None, "completion_tokens": None}})

            def _send(self, status: int, payload: dict, headers: dict | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:  # quiet: log.jsonl is the record
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = self.server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def question(self, body: dict) -> int:
        """The question's number (the same for a retry of the same conversation); its prompt file is written once."""
        key = hashlib.sha256(json.dumps(body.get("messages"), sort_keys=True).encode()).hexdigest()
        with self._lock:
            if key in self._numbers:
                return self._numbers[key]
            number = len(self._numbers) + 1
            self._numbers[key] = number
        parts = [f"<!-- question {number:03d}, model {body.get('model')!r}, asked {time.strftime('%Y-%m-%d %H:%M:%S')}; "
                 f"write the answer to {number:03d}.answer.md -->"]
        for message in body["messages"]:
            parts.append(f"\n# {message.get('role', '?')}\n\n{message.get('content', '')}")
        (self.folder / f"{number:03d}.prompt.md").write_text("\n".join(parts) + "\n", encoding="utf-8")
        self.log({"event": "asked", "number": number, "chars": sum(len(m.get("content") or "") for m in body["messages"])})
        return number

    def wait_for(self, number: int) -> str | None:
        """The answer file's text once it exists, or None after `hold_s`."""
        path = self.folder / f"{number:03d}.answer.md"
        deadline = time.monotonic() + self.hold_s
        while True:
            if path.is_file():
                return path.read_text(encoding="utf-8")
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.1)

    def log(self, record: dict) -> None:
        with self._lock, (self.folder / "log.jsonl").open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"at": time.strftime("%Y-%m-%dT%H:%M:%S"), **record}) + "\n")

    def __enter__(self) -> "Bridge":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m perfloop.evals.llm_bridge", description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, required=True, help="folder for NNN.prompt.md and NNN.answer.md")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--hold", type=float, default=50.0, help="seconds a request waits for its answer file")
    parser.add_argument("--retry-after", type=float, default=5.0, help="Retry-After of the 503 sent after --hold")
    args = parser.parse_args(argv)
    with Bridge(args.dir, args.port, args.hold, args.retry_after) as bridge:
        print(f"llm_bridge: {bridge.base_url} (prompts and answers in {args.dir}); Ctrl-C stops", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            return 0


if __name__ == "__main__":
    raise SystemExit(main())
