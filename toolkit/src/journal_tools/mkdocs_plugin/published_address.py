"""A build for publishing names the site's real addresses. mkdocs.yml reads ``site_url`` and ``repo_url`` from the
environment (``!ENV [SITE_URL, "http://127.0.0.1:8000/<name>/"]``), so a local build uses the local address and the
Pages workflow gives the published one (actions/configure-pages' ``base_url``, the repository's URL). A build with
``JOURNAL_PUBLISH=1`` (the workflow's) that still holds a placeholder or local host stops at its mkdocs.yml line:
otherwise every feed link, canonical URL and sitemap entry would point at example.github.io or 127.0.0.1.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

from journal_tools.compat.mkdocs_config import config_line

__all__ = ["ENV", "placeholder", "problems"]

ENV = "JOURNAL_PUBLISH"
# Hosts that are never where a journal is published: the documentation examples (RFC 2606, GitHub's) and this machine.
_HOSTS = {"example.com", "example.org", "example.net", "example.github.io", "localhost", "127.0.0.1", "0.0.0.0", "::1"}
_EXAMPLE_OWNER = {"github.com", "gitlab.com"}  # github.com/example/...: the example account


def publishing() -> bool:
    """Is this build for publishing (``JOURNAL_PUBLISH`` set, and not 0)?"""
    return os.environ.get(ENV, "") not in ("", "0")


def placeholder(url: str) -> str | None:
    """What makes ``url`` a placeholder (its host, or host/owner), None for a real address."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if not host or host in _HOSTS or host.endswith((".example.com", ".example.org", ".example.net", ".example", ".localhost")):
        return host or "no host"
    owner = parts.path.strip("/").split("/", 1)[0].lower()
    if host in _EXAMPLE_OWNER and owner == "example":
        return f"{host}/{owner}"
    return None


def problems(config, config_file: str | os.PathLike) -> list[str]:
    """``mkdocs.yml:N: ...`` for each of site_url and repo_url that is a placeholder, in a build for publishing (else none)."""
    if not publishing():
        return []
    found = []
    for key, env in (("site_url", "SITE_URL"), ("repo_url", "REPO_URL")):
        url = config.get(key) or ""
        what = placeholder(url)
        if what is not None:
            found.append(f"{Path(config_file).name}:{config_line(config_file, [key]) or 1}: {key} {url or '(unset)'} is a "
                         f"placeholder ({what}), and this build is for publishing ({ENV}=1): set {env} to the published "
                         f"address (the Pages workflow sets it) or write it in {key}")
    return found
