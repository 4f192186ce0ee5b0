"""Ask an OpenAI-compatible endpoint for one edit, validate it, and turn it into a git diff.

The endpoint is not trusted to behave: every reply is bounded (``max_tokens``, a
1 MiB cap on the body, a timeout on the whole request) and every failure ends as
``LLMUnavailable`` (a ``NotApplicable``: the optimize node skips the remedy with the
reason) after a bounded number of tries, never as a traceback. The API key and any
credentials in the base URL never appear in a message, a log record or the audit.
"""
from __future__ import annotations

import email.utils
import json
import os
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import jinja2
from pydantic import BaseModel, Field

from perfloop.agent.proposers.answers import BadAnswer, EditAnswer, apply_edits, parse_candidates
from perfloop.agent.state import LoopState
from perfloop.tools.change.codemods import NotApplicable

PROMPTS = Path(__file__).resolve().parent / "prompts"
MAX_ATTEMPTS = 2
API_KEY_ENV = "PERFLOOP_LLM_API_KEY"
BASIC_AUTH_ENV = "PERFLOOP_LLM_BASIC_AUTH"
"""user:password sent as basic auth; the CLI moves credentials given in --llm-base-url here (in
memory only: the URL perfloop stores never holds them)."""
MAX_TOKENS = 4096
"""Sent as max_tokens: an edit answer is short; a runaway one costs money and time."""
MAX_ANSWER_BYTES = 1 << 20
"""Largest response body read; past it the answer is dropped (read stops there)."""
MAX_HTTP_TRIES = 3
"""Requests per question when the endpoint fails transiently (429, 5xx, timeout, garbage 200)."""
MAX_RETRY_AFTER_S = 60.0
"""Longest Retry-After honoured; a longer one skips the remedy instead of stalling the run."""
_sleep = time.sleep  # a seam for tests, which need not wait out a backoff


class LLMUnavailable(NotApplicable):
    """The endpoint gave no usable reply (auth, rate limit, timeout, garbage, refusal, size).

    A NotApplicable, so the optimize node records the remedy as skipped with this
    message as the reason; the message is already free of the key and URL credentials.
    """


class _Transient(Exception):
    """A failure worth another try; `wait_s` is how long the endpoint asked us to wait."""

    def __init__(self, reason: str, wait_s: float | None = None) -> None:
        super().__init__(reason)
        self.wait_s = wait_s


class LLMReply(BaseModel):
    """One answered chat completion and what it cost."""

    content: str = Field(description="The assistant's text.")
    finish_reason: str | None = Field(None, description="'stop', 'length' (cut at max_tokens), ...")
    prompt_tokens: int | None = Field(None, description="As the endpoint reported; None if it did not.")
    completion_tokens: int | None = Field(None, description="As the endpoint reported; None if it did not.")
    latency_s: float = Field(description="Seconds from the first request to the answer, retries included.")
    http_attempts: int = Field(description="HTTP requests made for this answer (1 without retries).")


class Endpoint:
    """An OpenAI-compatible endpoint: URL without credentials, how to authenticate, what to hide."""

    def __init__(self, base_url: str, api_key: str | None, timeout_s: float, basic_auth: str | None = None) -> None:
        parts = urlsplit(base_url)
        self.user, self.password = parts.username, parts.password
        if self.user is None and basic_auth:
            self.user, _, self.password = basic_auth.partition(":")
        host = parts.hostname or ""
        netloc = f"[{host}]" if ":" in host else host
        netloc += f":{parts.port}" if parts.port else ""
        self.url = urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), parts.query, ""))
        self.api_key = api_key or None
        self.timeout_s = timeout_s
        self.secrets = [x for x in (self.api_key, self.password) if x and len(x) >= 3]

    def redact(self, text: str) -> str:
        """Return `text` with the key and URL credentials replaced by ***."""
        for secret in self.secrets:
            text = text.replace(secret, "***")
        return text


def _client(endpoint: Endpoint):
    """Return an OpenAI SDK client for the endpoint: no SDK retries (ours are bounded and logged)."""
    import httpx
    from openai import OpenAI

    auth = httpx.BasicAuth(endpoint.user, endpoint.password or "") if (
        not endpoint.api_key and endpoint.user is not None) else None
    http = httpx.Client(timeout=endpoint.timeout_s, auth=auth, follow_redirects=False)
    return OpenAI(base_url=endpoint.url, api_key=endpoint.api_key or "unused", timeout=endpoint.timeout_s,
                  max_retries=0, http_client=http)


def chat(endpoint: Endpoint, model: str, messages: list[dict], max_tokens: int = MAX_TOKENS) -> LLMReply:
    """Ask once, retrying transient failures up to MAX_HTTP_TRIES; raise LLMUnavailable when it gives up."""
    payload = {"model": model, "messages": messages, "temperature": 0, "max_tokens": max_tokens}
    started = time.monotonic()
    reason = ""
    with _client(endpoint) as client:
        for attempt in range(1, MAX_HTTP_TRIES + 1):
            try:
                reply = _request(client, endpoint, payload)
            except _Transient as transient:
                reason = endpoint.redact(str(transient))
                if attempt == MAX_HTTP_TRIES:
                    break
                wait_s = transient.wait_s if transient.wait_s is not None else float(attempt)
                if wait_s > MAX_RETRY_AFTER_S:
                    raise LLMUnavailable(f"{reason}; it asks to wait {wait_s:.0f} s, more than the "
                                         f"{MAX_RETRY_AFTER_S:.0f} s perfloop waits") from None
                _sleep(wait_s)
                continue
            return reply.model_copy(update={"latency_s": round(time.monotonic() - started, 3),
                                            "http_attempts": attempt})
    raise LLMUnavailable(f"{reason} (gave up after {MAX_HTTP_TRIES} tries)")


def _exchange(client, endpoint: Endpoint, payload: dict) -> tuple[int, dict, bytes]:
    """POST one chat completion through the SDK; return (status, headers, body), the body read up to the cap."""
    import openai

    where = f"the LLM endpoint {endpoint.url}"
    deadline = time.monotonic() + endpoint.timeout_s
    try:
        # The streaming view hands over the raw body, so a huge or non-JSON answer is ours to judge.
        with client.chat.completions.with_streaming_response.create(**payload) as response:
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > MAX_ANSWER_BYTES:
                raise LLMUnavailable(f"{where} sent a {int(declared) / 2**20:.1f} MiB answer, more than the "
                                     f"{MAX_ANSWER_BYTES >> 20} MiB perfloop reads")
            body = bytearray()
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > MAX_ANSWER_BYTES:
                    raise LLMUnavailable(f"{where} sent an answer larger than {MAX_ANSWER_BYTES >> 20} MiB; "
                                         "dropped unread")
                if time.monotonic() > deadline:
                    raise _Transient(f"{where} timed out after {endpoint.timeout_s:g} s (answer still arriving)")
            return response.status_code, dict(response.headers), bytes(body)
    except openai.APIStatusError as error:  # 4xx/5xx: the SDK has read the (error) body
        return error.status_code, dict(error.response.headers), error.response.content[:MAX_ANSWER_BYTES]
    except openai.APITimeoutError:
        raise _Transient(f"{where} timed out after {endpoint.timeout_s:g} s") from None
    except openai.APIConnectionError as error:
        cause = error.__cause__ or error
        raise _Transient(f"could not reach {where}: {type(cause).__name__}: {cause}") from None


def _request(client, endpoint: Endpoint, payload: dict) -> LLMReply:
    """Make one request; return the reply, raise _Transient (try again) or LLMUnavailable (give up)."""
    where = f"the LLM endpoint {endpoint.url}"
    status, headers, body = _exchange(client, endpoint, payload)
    retry_after = _retry_after_s({k.lower(): v for k, v in headers.items()}.get("retry-after"))
    excerpt = endpoint.redact(body[:200].decode("utf-8", errors="replace")).strip()
    if status in (401, 403):
        raise LLMUnavailable(endpoint.redact(
            f"{where} refused the credentials (HTTP {status}: {excerpt}); set {API_KEY_ENV} to a valid key"))
    if status == 429:
        raise _Transient(f"{where} is rate-limiting (HTTP 429)", retry_after)
    if status >= 500:
        raise _Transient(f"{where} failed (HTTP {status}: {excerpt})", retry_after)
    if status != 200:
        raise LLMUnavailable(endpoint.redact(f"{where} answered HTTP {status}: {excerpt}"))
    try:
        data = json.loads(body)
    except ValueError:
        raise _Transient(f"{where} answered HTTP 200 with a body that is not JSON: {excerpt[:80]!r}") from None
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise _Transient(f"{where} answered HTTP 200 without any choice: {excerpt[:80]!r}")
    message = choices[0].get("message") or {}
    finish_reason = choices[0].get("finish_reason")
    refusal = message.get("refusal") if isinstance(message, dict) else None
    if refusal or finish_reason == "content_filter":
        raise LLMUnavailable(endpoint.redact(f"the model refused: {str(refusal or 'content filter')[:200]}"))
    content = message.get("content") if isinstance(message, dict) else None
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    return LLMReply(content=endpoint.redact(content if isinstance(content, str) else ""),
                    finish_reason=finish_reason if isinstance(finish_reason, str) else None,
                    prompt_tokens=_count(usage.get("prompt_tokens")),
                    completion_tokens=_count(usage.get("completion_tokens")), latency_s=0.0, http_attempts=1)


def _retry_after_s(value: str | None) -> float | None:
    """Read a Retry-After header (seconds or an HTTP date); None when absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _count(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def render_prompt(**values) -> str:
    """Render prompts/propose_edit.j2; a missing value is an error, not an empty string."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(PROMPTS), undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True)
    return env.get_template("propose_edit.j2").render(**values)


def endpoint_for(state: LoopState) -> Endpoint:
    """Return the run's endpoint, the key and basic auth read from the environment (never from the state)."""
    settings = state.settings
    return Endpoint(settings.llm_base_url, os.environ.get(API_KEY_ENV), settings.llm_timeout_s,
                    os.environ.get(BASIC_AUTH_ENV))


__all__ = ["BadAnswer", "EditAnswer", "LLMUnavailable", "apply_edits", "chat", "endpoint_for", "parse_candidates",
           "render_prompt"]
