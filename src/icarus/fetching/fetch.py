"""``SafeFetcher``: fetch one public URL without letting the page steer us somewhere it should not.

What each request goes through, in order:

1. the SSRF guard (``URLGuard``) resolves the host and checks every address; this runs again before every
   request, so each redirect hop and each retry is re-checked against a fresh DNS answer;
2. the per-check ``FetchBudget`` (fetch count and wall-clock seconds) and the per-host rate limit;
3. the connection is made to one of the addresses the guard just checked, never to a fresh lookup: the
   request URL carries the IP and the original name travels in the Host header and, for https, as the TLS
   server name (SNI), which is also the name the certificate is verified against. httpx therefore does no
   DNS of its own, and a rebinding answer between check and connect has nothing to act on. Connections
   are not kept alive, so a TLS session verified for one name is never reused for another name on the
   same IP; environment proxies are ignored (a proxy would make its own DNS lookup);
4. redirects are followed by hand (at most ``max_redirects``), each target going back to step 1;
5. the response must be 2xx with an allowed media type; 429, 5xx gateway errors and failed connects are
   retried with exponential backoff, honouring ``Retry-After`` up to a cap;
6. the body is streamed with a cap on the bytes on the wire and, separately, on the decoded bytes
   (gzip/deflate are decoded here, in bounded steps, so a compression bomb stops at the cap).
   Brotli and zstd are neither advertised nor decoded: a server that sends them anyway is refused.

Residual risk, stated plainly: the guard trusts what the resolver says about *which* address a name has,
and the check is only as good as the address ranges it knows; an allowlist (tests, internal deployments)
switches the address checks off for what it names. Name resolution itself (``getaddrinfo``) has no
timeout of its own.
"""

from __future__ import annotations

import hashlib
import threading
import time
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Protocol

from icarus.fetching.errors import (
    BadStatus,
    BlockedURL,
    BodyTooLarge,
    BudgetExceeded,
    ConnectFailed,
    DecodingFailed,
    DecompressionBomb,
    FetchError,
    FetchTimeout,
    TooManyRedirects,
    UnsupportedContentType,
    UnsupportedEncoding,
)
from icarus.fetching.guard import CheckedURL, GuardPolicy, IPAddress, Resolver, URLGuard, system_resolver
from icarus.settings import Settings

if TYPE_CHECKING:
    import ssl

    import httpx

# httpx, ssl and http.cookiejar are imported where a request is made: most fetchers (one per check, in
# case a cited link is read) never make one, and importing them is a twentieth of a second of every check.

__all__ = [
    "ALLOWED_CONTENT_TYPES",
    "REDIRECT_STATUSES",
    "RETRY_STATUSES",
    "Clock",
    "FetchBudget",
    "FetchLimits",
    "FetchResult",
    "HostRateLimiter",
    "SafeFetcher",
    "Sleep",
    "media_type",
]

Clock = Callable[[], float]
Sleep = Callable[[float], None]

ALLOWED_CONTENT_TYPES: frozenset[str] = frozenset(
    {
        "text/html",
        "application/xhtml+xml",
        "text/plain",
        "application/pdf",
        "application/json",
        "image/png",
        "image/jpeg",
        "image/webp",
    }
)
RETRY_STATUSES: frozenset[int] = frozenset({429, 500, 502, 503, 504})
REDIRECT_STATUSES: frozenset[int] = frozenset({301, 302, 303, 307, 308})

_CHUNK = 64 * 1024
_MAX_ENCODING_LAYERS = 2
_ACCEPT = (
    "text/html,application/xhtml+xml;q=0.9,application/pdf;q=0.9,application/json;q=0.8,"
    "text/plain;q=0.8,image/png;q=0.5,image/jpeg;q=0.5,image/webp;q=0.5"
)


def media_type(content_type: str) -> str:
    """The bare, lowercased media type of a Content-Type value (``text/html; charset=utf-8`` → ``text/html``)."""
    return content_type.split(";", 1)[0].strip().lower()


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class FetchLimits:
    """Every limit the fetcher applies. ``from_settings`` reads the ``ICARUS_FETCH_…`` settings."""

    max_bytes: int = 10 * 1024 * 1024
    """Bytes on the wire (compressed or not); the transfer is aborted past this."""
    max_decompressed_bytes: int = 50 * 1024 * 1024
    """Bytes after decoding gzip/deflate; decoding is aborted past this."""
    timeout_s: float = 15.0
    """Connect, read and write timeout, and also the limit on one whole request including its body."""
    max_redirects: int = 5
    retries: int = 2
    """Extra attempts after a transient failure (429, 500/502/503/504, failed connect)."""
    user_agent: str = "IcarusEvidenceReview/0.1 (+https://icarus.invalid/bot)"
    min_host_interval_s: float = 1.0
    """Least time between the starts of two requests to the same host name."""
    backoff_base_s: float = 0.5
    """First retry waits this long, then twice as long each time, up to ``backoff_max_s``."""
    backoff_max_s: float = 30.0
    max_retry_after_s: float = 60.0
    """A ``Retry-After`` longer than this is not waited for: the fetch fails instead of retrying early."""

    @classmethod
    def from_settings(cls, settings: Settings | None = None, **overrides: float | int | str) -> FetchLimits:
        s = settings if settings is not None else Settings()
        values: dict[str, float | int | str] = {
            "max_bytes": s.fetch_max_bytes,
            "max_decompressed_bytes": s.fetch_max_decompressed_bytes,
            "timeout_s": s.fetch_timeout_s,
            "max_redirects": s.fetch_max_redirects,
            "retries": s.fetch_retries,
            "user_agent": s.user_agent,
        }
        values.update(overrides)
        return cls(**values)  # type: ignore[arg-type]


@dataclass(frozen=True)
class FetchResult:
    """One successful fetch. ``body`` is the decoded body; ``sha256`` is its hex digest."""

    url: str
    """The URL asked for."""
    final_url: str
    """Where the redirects (if any) ended: the URL that answered with the body."""
    status: int
    content_type: str
    """The Content-Type header as sent (with any charset); ``media_type`` is the bare type."""
    body: bytes = field(repr=False)
    sha256: str
    fetched_at: datetime
    """UTC time the final response arrived."""
    redirects: tuple[str, ...] = ()
    """Each URL that answered with a redirect, in order (the first is ``url`` when there were any)."""
    address: str = ""
    """The IP address the final response came from."""

    @property
    def media_type(self) -> str:
        return media_type(self.content_type)

    @property
    def ref(self) -> str:
        """The content-addressed reference of the body, as the snapshot store names it."""
        return f"sha256:{self.sha256}"


class FetchBudget:
    """A per-check allowance: at most ``max_fetches`` fetches and ``max_seconds`` of wall-clock time.

    The clock starts at the first fetch. Spending past either limit raises ``BudgetExceeded``. A fetch is
    one ``SafeFetcher.fetch`` call, however many redirects and retries it takes; the seconds limit also
    caps each request's timeout and refuses any retry wait that would outlast it. Thread-safe.
    """

    def __init__(self, max_fetches: int, max_seconds: float, *, clock: Clock = time.monotonic) -> None:
        self.max_fetches = max_fetches
        self.max_seconds = max_seconds
        self._clock = clock
        self._started: float | None = None
        self._fetches = 0
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings | None = None, *, clock: Clock = time.monotonic) -> FetchBudget:
        s = settings if settings is not None else Settings()
        return cls(s.check_max_fetches, s.check_max_seconds, clock=clock)

    @property
    def fetches_used(self) -> int:
        return self._fetches

    def elapsed_s(self) -> float:
        return 0.0 if self._started is None else self._clock() - self._started

    def remaining_s(self) -> float:
        return self.max_seconds - self.elapsed_s()

    def begin_fetch(self, url: str | None = None) -> None:
        """Count one fetch, or raise ``BudgetExceeded`` if none are left or the time is spent."""
        with self._lock:
            if self._started is None:
                self._started = self._clock()
            if self._fetches >= self.max_fetches:
                raise BudgetExceeded(f"fetch budget spent: all {self.max_fetches} fetches used", url=url)
            self._check_time(url, 0.0)
            self._fetches += 1

    def ensure_time(self, url: str | None = None, needed_s: float = 0.0) -> None:
        """Raise ``BudgetExceeded`` unless ``needed_s`` more seconds fit in what is left."""
        with self._lock:
            self._check_time(url, needed_s)

    def _check_time(self, url: str | None, needed_s: float) -> None:
        elapsed = self.elapsed_s()
        if elapsed + needed_s >= self.max_seconds:
            wanted = f" (needed {needed_s:.1f} s more)" if needed_s else ""
            raise BudgetExceeded(
                f"time budget spent: {elapsed:.1f} s of {self.max_seconds:.1f} s used{wanted}", url=url
            )


class HostRateLimiter:
    """Spaces the starts of requests to one host at least ``min_interval_s`` apart. Thread-safe.

    Each caller reserves the next free slot under the lock and sleeps outside it, so concurrent callers
    queue up instead of all waking together.
    """

    def __init__(self, min_interval_s: float, *, clock: Clock = time.monotonic, sleep: Sleep = time.sleep):
        self.min_interval_s = min_interval_s
        self._clock = clock
        self._sleep = sleep
        self._next_free: dict[str, float] = {}
        self._lock = threading.Lock()

    def wait(self, host: str) -> float:
        """Block until ``host`` may be contacted again; return the seconds waited."""
        key = host.lower()
        with self._lock:
            now = self._clock()
            slot = max(now, self._next_free.get(key, now))
            self._next_free[key] = slot + self.min_interval_s
        delay = slot - now
        if delay > 0:
            self._sleep(delay)
        return delay


class _Layer(Protocol):
    def feed(self, data: bytes) -> list[bytes]: ...
    def finish(self) -> list[bytes]: ...


class _Inflater:
    """gzip or deflate, decoded in bounded steps with a running total checked against the cap.

    ``max_length`` bounds what zlib may return per call, so a tiny input that inflates to gigabytes is
    produced (and counted) 64 KiB at a time and stopped at the cap instead of being materialised.
    """

    def __init__(self, encoding: str, cap: int, url: str) -> None:
        self._gzip = encoding in ("gzip", "x-gzip")
        self._encoding = encoding
        self._cap = cap
        self._url = url
        self._out = 0
        self._seen_input = False
        self._pending = b""
        self._d = zlib.decompressobj(16 + zlib.MAX_WBITS) if self._gzip else None

    def feed(self, data: bytes) -> list[bytes]:
        if not data:
            return []
        self._seen_input = True
        if self._d is None:
            # "deflate" is zlib-wrapped by the standard but raw in practice; decide from the header.
            self._pending += data
            if len(self._pending) < 2:
                return []
            data, self._pending = self._pending, b""
            wrapped = (data[0] & 0x0F) == 8 and ((data[0] << 8) | data[1]) % 31 == 0
            self._d = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
        return self._run(data)

    def _run(self, data: bytes) -> list[bytes]:
        assert self._d is not None
        pieces: list[bytes] = []
        buf = data
        while True:
            if self._d.eof:
                # gzip allows members back to back; zero padding after the last one is common and harmless.
                buf = buf.lstrip(b"\0")
                if not buf:
                    return pieces
                if not self._gzip:
                    raise DecodingFailed("data after the end of the deflate stream", url=self._url)
                self._d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            try:
                piece = self._d.decompress(buf, _CHUNK)
            except zlib.error as exc:
                raise DecodingFailed(f"corrupt {self._encoding} body: {exc}", url=self._url) from exc
            self._count(piece, pieces)
            buf = self._d.unused_data if self._d.eof else self._d.unconsumed_tail
            # A full-sized piece may mean zlib holds more output even with no input left.
            if not self._d.eof and not buf and len(piece) < _CHUNK:
                return pieces

    def _count(self, piece: bytes, pieces: list[bytes]) -> None:
        if not piece:
            return
        self._out += len(piece)
        if self._out > self._cap:
            raise DecompressionBomb(
                f"decoded {self._encoding} body exceeds {self._cap} bytes; decoding aborted", url=self._url
            )
        pieces.append(piece)

    def finish(self) -> list[bytes]:
        if not self._seen_input:
            return []
        if self._d is None:  # a one-byte deflate body
            raise DecodingFailed("truncated deflate body", url=self._url)
        pieces: list[bytes] = []
        while not self._d.eof:
            try:
                piece = self._d.decompress(b"", _CHUNK)
            except zlib.error as exc:
                raise DecodingFailed(f"corrupt {self._encoding} body: {exc}", url=self._url) from exc
            if not piece:
                break
            self._count(piece, pieces)
        if not self._d.eof:
            raise DecodingFailed(f"truncated {self._encoding} body", url=self._url)
        return pieces


class _Chain:
    """Content-Encoding layers, undone in reverse order of listing."""

    def __init__(self, layers: list[_Layer]) -> None:
        self._layers = layers

    def feed(self, data: bytes) -> list[bytes]:
        pieces = [data]
        for layer in self._layers:
            pieces = [out for piece in pieces for out in layer.feed(piece)]
        return pieces

    def finish(self) -> list[bytes]:
        pieces: list[bytes] = []
        for layer in self._layers:
            pieces = [out for piece in pieces for out in layer.feed(piece)] + layer.finish()
        return pieces


def _decoder(content_encoding: str | None, cap: int, url: str) -> _Chain:
    names = [n.strip().lower() for n in (content_encoding or "").split(",")]
    names = [n for n in names if n and n != "identity"]
    if len(names) > _MAX_ENCODING_LAYERS:
        raise UnsupportedEncoding(f"{len(names)} stacked content encodings", url=url)
    layers: list[_Layer] = []
    for name in reversed(names):
        if name not in ("gzip", "x-gzip", "deflate"):
            raise UnsupportedEncoding(f"content encoding {name!r} is not decoded here", url=url)
        layers.append(_Inflater(name, cap, url))
    return _Chain(layers)


@dataclass(frozen=True)
class _Redirect:
    location: str


@dataclass(frozen=True)
class _Body:
    status: int
    content_type: str
    body: bytes
    address: str


class _Transient(Exception):
    """A failure worth retrying; ``error`` is what the caller sees if the retries run out."""

    def __init__(self, error: FetchError, retry_after: float | None = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.retry_after = retry_after


def _tls_failure(exc: BaseException) -> bool:
    import ssl

    seen: BaseException | None = exc
    for _ in range(8):  # httpx wraps httpcore, which wraps the ssl error
        if seen is None:
            return False
        if isinstance(seen, ssl.SSLError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _with_note(error: FetchError, note: str) -> FetchError:
    error.message = f"{error.message} ({note})"
    error.args = (error.message,)
    return error


class SafeFetcher:
    """Fetches public http(s) URLs under the SSRF guard, caps, timeouts, retries, rate limit and budget.

    Construct once and reuse (it holds one connection-less ``httpx.Client``, made for its first request);
    close it, or use it as a context manager. Every failure is a ``FetchError`` subclass.

    ``allow_loopback_for_tests`` admits 127.0.0.0/8 and ::1 (on any port) so tests can use a local server;
    it is never on by default. ``policy`` and ``resolver`` configure the guard; ``clock``, ``sleep`` and
    ``now`` are injectable so tests of backoff and rate limits take no real time.
    """

    def __init__(
        self,
        limits: FetchLimits | None = None,
        *,
        policy: GuardPolicy | None = None,
        resolver: Resolver = system_resolver,
        allow_loopback_for_tests: bool = False,
        allowed_content_types: Iterable[str] = ALLOWED_CONTENT_TYPES,
        clock: Clock = time.monotonic,
        sleep: Sleep = time.sleep,
        now: Callable[[], datetime] = _utc_now,
        verify: ssl.SSLContext | bool = True,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.limits = limits if limits is not None else FetchLimits.from_settings()
        guard_policy = policy if policy is not None else GuardPolicy()
        if allow_loopback_for_tests:
            guard_policy = guard_policy.with_loopback()
        self.guard = URLGuard(guard_policy, resolver)
        self.allowed_content_types = frozenset(media_type(t) for t in allowed_content_types)
        self._clock = clock
        self._sleep = sleep
        self._now = now
        self.rate_limiter = HostRateLimiter(self.limits.min_host_interval_s, clock=clock, sleep=sleep)
        self._verify = verify
        self._transport = transport
        self._client: httpx.Client | None = None
        self._client_lock = threading.Lock()
        self._closed = False

    def _http(self) -> httpx.Client:
        """The HTTP client, made for the first request: its TLS context takes a twentieth of a second to
        build, and most fetchers (one per check, in case a cited link is read) never send a request."""
        import http.cookiejar

        import httpx

        with self._client_lock:
            if self._closed:
                raise RuntimeError("Cannot send a request, as the client has been closed.")
            if self._client is None:
                self._client = httpx.Client(
                    transport=self._transport
                    or httpx.HTTPTransport(
                        verify=self._verify,
                        trust_env=False,
                        limits=httpx.Limits(max_keepalive_connections=0),
                    ),
                    follow_redirects=False,
                    trust_env=False,
                    # A jar that refuses every cookie: fetches are independent and must not carry state.
                    cookies=http.cookiejar.CookieJar(http.cookiejar.DefaultCookiePolicy(allowed_domains=[])),
                    headers={
                        "User-Agent": self.limits.user_agent,
                        "Accept": _ACCEPT,
                        "Accept-Encoding": "gzip, deflate",
                    },
                )
            return self._client

    def close(self) -> None:
        with self._client_lock:
            self._closed = True
            if self._client is not None:
                self._client.close()

    def __enter__(self) -> SafeFetcher:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def fetch(
        self, url: str, *, budget: FetchBudget | None = None, accept: Iterable[str] | None = None
    ) -> FetchResult:
        """Fetch ``url`` and return its decoded body, or raise a ``FetchError`` subclass.

        ``accept`` narrows the allowed media types for this call (it cannot widen the fetcher's list).
        """
        allowed = self.allowed_content_types
        if accept is not None:
            allowed = allowed & frozenset(media_type(t) for t in accept)
        if budget is not None:
            budget.begin_fetch(url)
        current = url
        redirects: list[str] = []
        while True:
            outcome = self._with_retries(current, budget, allowed)
            if isinstance(outcome, _Body):
                break
            if len(redirects) >= self.limits.max_redirects:
                raise TooManyRedirects(
                    f"more than {self.limits.max_redirects} redirects (last to {outcome.location})", url=url
                )
            redirects.append(current)
            current = outcome.location
        return FetchResult(
            url=url,
            final_url=current,
            status=outcome.status,
            content_type=outcome.content_type,
            body=outcome.body,
            sha256=hashlib.sha256(outcome.body).hexdigest(),
            fetched_at=self._now().astimezone(UTC),
            redirects=tuple(redirects),
            address=outcome.address,
        )

    def _with_retries(
        self, url: str, budget: FetchBudget | None, allowed: frozenset[str]
    ) -> _Redirect | _Body:
        attempt = 0
        while True:
            try:
                return self._attempt(url, budget, allowed)
            except _Transient as transient:
                attempts = attempt + 1
                if attempt >= self.limits.retries:
                    raise _with_note(transient.error, f"gave up after {attempts} attempts") from None
                if transient.retry_after is not None:
                    if transient.retry_after > self.limits.max_retry_after_s:
                        raise _with_note(
                            transient.error,
                            f"server asked to retry after {transient.retry_after:.0f} s, "
                            f"more than the {self.limits.max_retry_after_s:.0f} s this fetcher waits",
                        ) from None
                    delay = transient.retry_after
                else:
                    delay = min(self.limits.backoff_base_s * 2**attempt, self.limits.backoff_max_s)
                if budget is not None:
                    budget.ensure_time(url, delay)
                self._sleep(delay)
                attempt = attempts

    def _attempt(self, url: str, budget: FetchBudget | None, allowed: frozenset[str]) -> _Redirect | _Body:
        import httpx

        checked = self.guard.check(url)  # re-resolved and re-checked before every request
        if budget is not None:
            budget.ensure_time(url)
        self.rate_limiter.wait(checked.host)
        timeout = self.limits.timeout_s
        if budget is not None:
            timeout = max(0.001, min(timeout, budget.remaining_s()))
        deadline = self._clock() + timeout
        failures: list[str] = []
        for address in checked.addresses:
            request = self._request(checked, address, timeout)
            try:
                response = self._http().send(request, stream=True)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                if _tls_failure(exc):
                    # A certificate that does not match will not match on the next try either.
                    raise ConnectFailed(f"TLS handshake with {address} failed: {exc}", url=url) from exc
                failures.append(f"{address}: {exc or type(exc).__name__}")
                continue
            except httpx.TimeoutException as exc:
                raise FetchTimeout(f"no response within {timeout:.1f} s", url=url) from exc
            except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as exc:
                raise _Transient(ConnectFailed(f"connection failed: {exc}", url=url)) from exc
            except httpx.HTTPError as exc:
                raise ConnectFailed(f"request failed: {exc}", url=url) from exc
            try:
                return self._handle(response, checked, address, allowed, deadline)
            finally:
                response.close()
        raise _Transient(ConnectFailed(f"could not connect: {'; '.join(failures)}", url=url))

    def _request(self, checked: CheckedURL, address: IPAddress, timeout: float) -> httpx.Request:
        # The URL names the checked IP; the name goes in Host and, for https, in SNI and certificate checks.
        target = checked.url.copy_with(host=str(address), fragment=None)
        extensions: dict[str, object] = {}
        if checked.url.scheme == "https" and not checked.is_ip_literal:
            extensions["sni_hostname"] = checked.host
        return self._http().build_request(
            "GET", target, headers={"Host": checked.host_header}, timeout=timeout, extensions=extensions
        )

    def _handle(
        self,
        response: httpx.Response,
        checked: CheckedURL,
        address: IPAddress,
        allowed: frozenset[str],
        deadline: float,
    ) -> _Redirect | _Body:
        import httpx

        url = str(checked.url)
        status = response.status_code
        if status in REDIRECT_STATUSES:
            location = response.headers.get("location")
            if not location:
                raise BadStatus(status, f"HTTP {status} redirect without a Location header", url=url)
            try:
                target = checked.url.join(location.strip())
            except (httpx.InvalidURL, ValueError) as exc:
                raise BlockedURL(f"unparseable redirect target {location[:200]!r}", url=url) from exc
            return _Redirect(str(target))
        if status in RETRY_STATUSES:
            error = BadStatus(status, f"HTTP {status} {response.reason_phrase}".rstrip(), url=url)
            raise _Transient(error, self._retry_after(response.headers.get("retry-after")))
        if not 200 <= status < 300:
            raise BadStatus(status, f"HTTP {status} {response.reason_phrase}".rstrip(), url=url)
        content_type = response.headers.get("content-type", "")
        kind = media_type(content_type)
        if kind not in allowed:
            shown = repr(kind) if kind else "missing"
            raise UnsupportedContentType(
                f"content type {shown} is not allowed (allowed: {', '.join(sorted(allowed))})", url=url
            )
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.limits.max_bytes:
            raise BodyTooLarge(
                f"declared body of {int(declared)} bytes exceeds the {self.limits.max_bytes}-byte cap",
                url=url,
            )
        body = self._read_body(response, url, deadline)
        return _Body(status=status, content_type=content_type, body=body, address=str(address))

    def _read_body(self, response: httpx.Response, url: str, deadline: float) -> bytes:
        import httpx

        decoder = _decoder(response.headers.get("content-encoding"), self.limits.max_decompressed_bytes, url)
        parts: list[bytes] = []
        wire = 0
        try:
            for chunk in response.iter_raw():
                wire += len(chunk)
                if wire > self.limits.max_bytes:
                    raise BodyTooLarge(
                        f"body exceeds the {self.limits.max_bytes}-byte cap; transfer aborted", url=url
                    )
                if self._clock() > deadline:
                    # A server that drips bytes slower than the read timeout would otherwise never end.
                    raise FetchTimeout("body not complete within the request timeout", url=url)
                parts.extend(decoder.feed(chunk))
            parts.extend(decoder.finish())
        except httpx.TimeoutException as exc:
            raise FetchTimeout(f"reading the body timed out: {exc}", url=url) from exc
        except httpx.HTTPError as exc:
            raise ConnectFailed(f"connection broke while reading the body: {exc}", url=url) from exc
        return b"".join(parts)

    def _retry_after(self, value: str | None) -> float | None:
        if not value:
            return None
        value = value.strip()
        if value.isdigit():
            return float(value)
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        return max(0.0, (when - self._now()).total_seconds())
