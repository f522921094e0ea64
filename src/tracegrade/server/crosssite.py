"""What a browser can send to serve on behalf of another site, refused from the head.

Without a token, whoever reaches the port is let in, and a web page the developer visits
reaches a loopback port too. Three checks keep such a page out:

- Host: a DNS-rebinding page (`rebind.example` re-pointed at 127.0.0.1) is same-origin with
  the server in the browser's eyes, so it could read every answer; but its requests carry
  `Host: rebind.example`. Without a token, only these Hosts are answered (421 otherwise):
  any IP address (no rebinding yields one), `localhost`, the name given to `--host`, the
  machine's own name when bound to all interfaces, and each `--allowed-host`. With a token
  the token is what admits, and a rebinding page has none (nor the pages' cookie, which
  belongs to the server's real host), so any Host is answered: a Collector reaches serve
  by its compose service name.
- Origin: a browser names the page that sent a POST (and a cross-origin fetch); a request
  whose Origin is not the server's own (its scheme and Host) is refused (403), and so is
  `Origin: null` (sandboxed frames, files).
- Sec-Fetch-Site: `cross-site` is refused (403) but for a GET or HEAD navigation, i.e. a
  link to a page followed from another site, which only shows the page to its reader.

What is left, a browser that sends neither header, is stopped by content types: the
endpoints that write or query take only JSON or OTLP (routes.py), which no page can send
to another origin without a CORS preflight, and serve answers no preflight.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass

from tracegrade.server.config import is_loopback
from tracegrade.server.messages import RequestHead

_WILDCARDS = ("", "0.0.0.0", "::")
_DEFAULT_PORTS = {"http": "80", "https": "443"}


@dataclass(frozen=True)
class Refusal:
    status: int
    reason: str


class CrossSiteGuard:
    """Judges a request head: None to go on, or why a browser's request is refused."""

    def __init__(self, names: frozenset[str] | None) -> None:
        self._names = names
        """The Host names answered besides IP addresses; None: any Host (a token is set)."""

    @classmethod
    def for_server(cls, host: str, allowed: Iterable[str], token: str | None) -> CrossSiteGuard:
        return cls(None if token else allowed_names(host, allowed))

    def refusal(self, head: RequestHead) -> Refusal | None:
        host = head.header("host").strip().lower()
        name = _hostname(host)
        if self._names is not None and host and name not in self._names and not _is_ip(name):
            return Refusal(421, f"Host {host!r} is not this server's: pass --allowed-host "
                           f"{name} to serve if this name is meant to reach it")  # fmt: skip
        origin = head.header("origin").strip().lower()
        if origin and origin != _origin_of(head.scheme, host):
            return Refusal(403, f"Origin {origin!r} is not this server's: a page of another "
                           "site may not send it requests")  # fmt: skip
        navigating = head.method in ("GET", "HEAD") and head.header("sec-fetch-mode") == "navigate"
        if head.header("sec-fetch-site").strip().lower() == "cross-site" and not navigating:
            return Refusal(403, "Sec-Fetch-Site is cross-site: a page of another site may only "
                           "link to this server's pages")  # fmt: skip
        return None


def allowed_names(host: str, allowed: Iterable[str]) -> frozenset[str]:
    """The Host names answered without a token (IP addresses are always)."""
    names = {"localhost", *(_hostname(name.strip().lower()) for name in allowed)}
    if host in _WILDCARDS:
        names.add(socket.gethostname().lower())
    elif not is_loopback(host):
        names.add(host.lower())
    return frozenset(names - {""})


def _hostname(host: str) -> str:
    """`name:port` or `[v6]:port` (as in a Host header) without the port or brackets."""
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _origin_of(scheme: str, host: str) -> str:
    """The origin a browser gives a page served as `host`: the scheme's own port left out."""
    default = _DEFAULT_PORTS.get(scheme)
    if default and host.endswith(f":{default}"):
        host = host[: -len(default) - 1]
    return f"{scheme}://{host}"
