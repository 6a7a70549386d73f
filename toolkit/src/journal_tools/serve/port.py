"""Is ``make serve``'s port free? Asked before ``mkdocs serve`` builds the whole site only to fail.

    python -m journal_tools.serve.port 127.0.0.1 8000

Exit 0, else 1 with ``port 8000 on 127.0.0.1 is in use: make serve PORT=8001``.
"""

from __future__ import annotations

import errno
import socket
import sys

__all__ = ["address_problem", "free_port_after", "main"]


def _bind(host: str, port: int) -> OSError | None:
    """Try to bind as MkDocs' server does (``SO_REUSEADDR``, so a port in TIME_WAIT counts as free)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        return exc
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as exc:
            return exc
    return None


def free_port_after(host: str, port: int, tries: int = 50) -> int | None:
    """The first port above ``port`` that can be bound on ``host``, or None."""
    for candidate in range(port + 1, min(port + 1 + tries, 65536)):
        if _bind(host, candidate) is None:
            return candidate
    return None


def address_problem(host: str, port: int) -> str | None:
    """One line saying why ``make serve`` cannot listen on ``host:port``, or None."""
    exc = _bind(host, port)
    if exc is None:
        return None
    if getattr(exc, "errno", None) == errno.EADDRINUSE:
        other = free_port_after(host, port)
        suggestion = f"make serve PORT={other}" if other else "stop the server using it, or make serve PORT=<another port>"
        return f"port {port} on {host} is in use: {suggestion}"
    if getattr(exc, "errno", None) == errno.EACCES:
        return f"port {port} on {host} needs privileges to listen on: make serve PORT=8000"
    return f"cannot listen on {host}:{port} ({exc.strerror or exc}): make serve SERVE_HOST=127.0.0.1"


def main(argv: list[str] | None = None) -> int:
    """``HOST PORT`` -> exit 0 when free; 1 (one line on stderr) when not; 2 for bad arguments."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or not args[1].isdigit() or not 0 < int(args[1]) < 65536:
        print("usage: python -m journal_tools.serve.port HOST PORT (PORT: 1-65535)", file=sys.stderr)
        return 2
    problem = address_problem(args[0], int(args[1]))
    if problem:
        print(problem, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
