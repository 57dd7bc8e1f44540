"""H10 live look-up: a domain's registration date from RDAP (RFC 9083).

``GET <base>/domain/<registered domain>`` answers a JSON object whose ``events`` list holds
``{"eventAction": "registration", "eventDate": "<RFC 3339>"}``. The default base, rdap.org, redirects to
the registry that is authoritative for the TLD, so redirects are followed.

The adapter never raises: a 404 is an honest "ok, no record"; a service that cannot be reached or does not
answer in time is "not run" (and not asked again for a while: ``reachability``); 5xx and malformed replies
are ``error`` results whose observations the rules ignore. Domains under the names reserved for examples
and tests (RFC 2606, RFC 6761) are registered nowhere, so they are not looked up. Answers are kept per
registered domain for the adapter's life: a registration date does not change.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from icarus.ledger import EvidenceItem, LookupName, LookupResult, LookupStatus
from icarus.lookups.reachability import Reachability, reserved_name
from icarus.provenance.canonical import registered_domain
from icarus.remote import parse_json, read_capped

if TYPE_CHECKING:
    import httpx

PROVIDER = "rdap@1"
DEFAULT_TIMEOUT_S = 10.0
MAX_KEPT = 4096  # registered domains whose answers are kept


def _parse_rdap_date(value: object) -> datetime | None:
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    parsed = datetime.fromisoformat(text)  # ValueError on junk: the caller reports it as malformed
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def registration_date(payload: Any) -> datetime | None:
    """The ``registration`` event's date in an RDAP domain object, or None when it has none.

    Raises ValueError when the payload is not an RDAP object or the date cannot be read.
    """
    if not isinstance(payload, dict):
        raise ValueError("RDAP reply is not a JSON object")
    events = payload.get("events", [])
    if not isinstance(events, list):
        raise ValueError("RDAP 'events' is not a list")
    for event in events:
        if isinstance(event, dict) and str(event.get("eventAction", "")).lower() == "registration":
            return _parse_rdap_date(event.get("eventDate"))
    return None


class RdapLookup:
    """Domain registration date via RDAP. ``base_url`` is a parameter so tests can use a local server."""

    def __init__(
        self,
        base_url: str = "https://rdap.org",
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        client: httpx.Client | None = None,
        user_agent: str = "Icarus-lookup/1",
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._reach = Reachability(f"RDAP at {self.base_url}")
        self._kept: dict[str, LookupResult] = {}
        self._client = client
        self._timeout_s = timeout_s
        self._user_agent = user_agent

    def _http(self) -> httpx.Client:
        """The HTTP client, made (and httpx imported) for the first request: a check whose evidence needs no
        request, such as one on the sample corpus, never loads it."""
        if self._client is None:
            import httpx

            self._client = httpx.Client(
                timeout=httpx.Timeout(self._timeout_s),
                follow_redirects=True,
                headers={"Accept": "application/rdap+json, application/json", "User-Agent": self._user_agent},
            )
        return self._client

    @property
    def name(self) -> LookupName:
        return LookupName.RDAP

    @property
    def provider(self) -> str:
        return PROVIDER

    def close(self) -> None:
        if self._client is not None:
            self._client.close()

    def _result(self, status: LookupStatus, detail: str, created: datetime | None = None) -> LookupResult:
        return LookupResult(
            name=LookupName.RDAP,
            status=status,
            provider=PROVIDER,
            observed_at=datetime.now(UTC),
            domain_created_at=created,
            detail=detail[:300],
        )

    def lookup(self, item: EvidenceItem) -> LookupResult:
        try:
            return self._lookup(item)
        except Exception as exc:  # the protocol: failures are results, never exceptions
            return self._result(LookupStatus.ERROR, f"rdap look-up failed: {type(exc).__name__}: {exc}")

    def _lookup(self, item: EvidenceItem) -> LookupResult:
        host = (item.domain or "").strip().lower()
        if not host:
            return self._result(LookupStatus.NOT_RUN, "no domain on the item")
        domain = registered_domain(host)
        if reserved_name(domain):
            return self._result(LookupStatus.NOT_RUN, f"{domain} is a reserved name, registered nowhere")
        kept = self._kept.get(domain)
        if kept is not None:
            return kept
        down = self._reach.down()
        if down is not None:
            return self._result(LookupStatus.NOT_RUN, down)
        result = self._ask(domain)
        if result.status is LookupStatus.OK and len(self._kept) < MAX_KEPT:
            self._kept[domain] = result
        return result

    def _ask(self, domain: str) -> LookupResult:
        import httpx

        url = f"{self.base_url}/domain/{domain}"
        try:
            # Streamed and capped: an endless answer is an error, not a worker out of memory.
            with self._http().stream("GET", url) as response:
                if response.status_code == 404:
                    return self._result(LookupStatus.OK, f"no RDAP record for {domain}")
                if response.status_code != 200:
                    detail = f"rdap answered HTTP {response.status_code} for {domain}"
                    return self._result(LookupStatus.ERROR, detail)
                body = read_capped(response)
        except (httpx.TimeoutException, httpx.NetworkError) as exc:
            return self._result(LookupStatus.NOT_RUN, self._reach.failed(exc))
        except httpx.HTTPError as exc:
            return self._result(LookupStatus.ERROR, f"rdap request for {domain} failed: {type(exc).__name__}")
        try:
            created = registration_date(parse_json(body))
        except ValueError as exc:  # AnswerError is one: too large, not JSON
            return self._result(LookupStatus.ERROR, f"malformed RDAP reply for {domain}: {exc}")
        if created is None:
            return self._result(LookupStatus.OK, f"RDAP record for {domain} has no registration event")
        return self._result(LookupStatus.OK, f"{domain} registered {created.isoformat()}", created)
