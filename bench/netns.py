"""Hosts on one machine: network namespaces joined to a bridge by veth pairs, made and removed by the caller.

Each host is a network namespace with one address on a private /24 and its own loopback; the machine itself
sits on the bridge at ``.1``, which is where the shared services (database, queue, search) listen. Nothing
leaves the machine: the bridge has no uplink and no route out. Names carry a random tag so that runs at the
same time do not collide, and everything is removed on exit, even after a failure. A host's link can be cut
(``partition``) and restored (``heal``): its packets are dropped, its connections stay open, as when a
switch port fails. Needs ``ip`` and the right to make namespaces (root or CAP_NET_ADMIN).
"""

from __future__ import annotations

import ipaddress
import os
import random
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Final

__all__ = ["Host", "NetnsUnavailable", "Network", "private_network", "why_not_permitted"]

IP_TIMEOUT_S: Final = 10
SUBNET_POOL: Final = ipaddress.IPv4Network("10.200.0.0/13")  # private, rarely routed on a development machine


class NetnsUnavailable(RuntimeError):
    """Network namespaces cannot be made here."""


def _ip(*args: str, namespace: str | None = None) -> None:
    command = ["ip", *args] if namespace is None else ["ip", "netns", "exec", namespace, "ip", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=IP_TIMEOUT_S)
    if done.returncode != 0:
        raise NetnsUnavailable(f"`{' '.join(command)}` failed: {done.stderr.strip()}")


def why_not_permitted() -> str | None:
    """None when namespaces can be made and removed here; else why not, in a sentence."""
    if shutil.which("ip") is None:
        return "the `ip` command (iproute2) is missing"
    probe = f"icarus-probe-{uuid.uuid4().hex[:8]}"
    try:
        _ip("netns", "add", probe)
    except NetnsUnavailable as exc:
        return f"`ip netns add` is not permitted here (root or CAP_NET_ADMIN; uid {os.geteuid()}): {exc}"
    try:
        _ip("netns", "delete", probe)
    except NetnsUnavailable as exc:
        return f"a probe namespace could not be removed: {exc}"
    return None


@dataclass(frozen=True)
class Host:
    """One host: a namespace with an address; ``link`` is its veth end on the bridge."""

    name: str
    address: str
    link: str

    def command(self, argv: list[str]) -> list[str]:
        """``argv`` run inside this host."""
        return ["ip", "netns", "exec", self.name, *argv]


@dataclass
class Network:
    """A bridge at ``gateway`` and the hosts joined to it."""

    tag: str
    subnet: ipaddress.IPv4Network
    bridge: str
    hosts: list[Host] = field(default_factory=list)

    @property
    def gateway(self) -> str:
        return str(self.subnet.network_address + 1)

    def add_host(self) -> Host:
        """A new host on the bridge, with the next free address and a default route to the machine."""
        number = len(self.hosts) + 1
        host = Host(
            name=f"icarus-{self.tag}-h{number}",
            address=str(self.subnet.network_address + 1 + number),
            link=f"icv{self.tag}h{number}",
        )
        inside = f"icp{self.tag}h{number}"
        _ip("netns", "add", host.name)
        self.hosts.append(host)  # removed on exit from here on, whatever fails next
        _ip("link", "add", host.link, "type", "veth", "peer", "name", inside)
        _ip("link", "set", inside, "netns", host.name)
        _ip("link", "set", host.link, "master", self.bridge)
        _ip("link", "set", host.link, "up")
        _ip("addr", "add", f"{host.address}/{self.subnet.prefixlen}", "dev", inside, namespace=host.name)
        _ip("link", "set", inside, "up", namespace=host.name)
        _ip("link", "set", "lo", "up", namespace=host.name)
        return host

    def partition(self, host: Host) -> None:
        """Cut ``host`` off: the bridge end of its link goes down, so nothing reaches it or leaves it."""
        _ip("link", "set", host.link, "down")

    def heal(self, host: Host) -> None:
        _ip("link", "set", host.link, "up")

    def close(self) -> None:
        """Remove the hosts (their veth pairs go with them) and the bridge; best effort, never raises."""
        for host in reversed(self.hosts):
            for args in (("link", "delete", host.link), ("netns", "delete", host.name)):
                with suppress(NetnsUnavailable):  # a veth end goes with its namespace
                    _ip(*args)
        with suppress(NetnsUnavailable):
            _ip("link", "delete", self.bridge)


def _free_subnet() -> ipaddress.IPv4Network:
    """A /24 from the pool that no address or route on this machine is in."""
    taken: list[ipaddress.IPv4Network] = []
    for listing in (["ip", "-4", "-o", "addr", "show"], ["ip", "-4", "route", "show"]):
        output = subprocess.run(listing, capture_output=True, text=True, timeout=IP_TIMEOUT_S).stdout
        for word in output.split():
            with suppress(ValueError):
                taken.append(ipaddress.IPv4Network(word, strict=False))
    candidates = list(SUBNET_POOL.subnets(new_prefix=24))
    random.shuffle(candidates)
    for subnet in candidates:
        if not any(subnet.overlaps(other) for other in taken if other.prefixlen > 0):
            return subnet
    raise NetnsUnavailable(f"no free /24 left in {SUBNET_POOL}")


@contextmanager
def private_network() -> Iterator[Network]:
    """A bridge with the machine at ``.1``; hosts are added with ``add_host``. Removed on exit."""
    reason = why_not_permitted()
    if reason is not None:
        raise NetnsUnavailable(reason)
    tag = uuid.uuid4().hex[:6]
    network = Network(tag=tag, subnet=_free_subnet(), bridge=f"icb{tag}")
    try:
        _ip("link", "add", network.bridge, "type", "bridge", "forward_delay", "0")
        _ip("addr", "add", f"{network.gateway}/{network.subnet.prefixlen}", "dev", network.bridge)
        _ip("link", "set", network.bridge, "up")
        yield network
    finally:
        network.close()
