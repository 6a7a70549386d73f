"""``make serve`` only: ask the live-reload server for a rebuild when background work ends; one asked for before
``on_serve`` hands the server over is asked once it is known.
"""

from __future__ import annotations

from journal_tools.compat import livereload

__all__ = ["RebuildRequests"]


class RebuildRequests:
    """The server's handle for rebuild requests, and a request waiting for the server."""

    def __init__(self):
        self.server = None
        self.wanted = False  # a rebuild asked for before there was a server

    def attach(self, server) -> None:
        """Know the server from now on; ask for the rebuild wanted before, if any."""
        self.server = server
        if self.wanted:
            self.ask()

    def ask(self) -> None:
        """Ask the server for a rebuild (once it is known)."""
        server = self.server
        if server is None:
            self.wanted = True
            return
        self.wanted = False
        livereload.request_rebuild(server)
