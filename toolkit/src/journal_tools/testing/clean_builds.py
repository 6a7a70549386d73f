"""Clean ``mkdocs build --strict`` runs, one after another, each in a new process
(journal_tools.testing.site's ``mkdocs_build``, the serve-equivalence test).

Starting Python and importing MkDocs, Material, the RSS plugin and the journal
plugin costs more than a build of the fixture journal. This process imports
them once and then forks one child per build: the child starts with no plugin
instance and no build state (nothing was configured or built here), runs
``mkdocs build`` as the command line does, and exits. So each build is as
clean as ``mkdocs build`` in a new process, without paying the imports again.

Run as ``python -m journal_tools.testing.clean_builds`` (the installed journal_tools is
the one imported; a project with a journal_tools folder of its own builds in a new process). Protocol: one ``<config file>
<site dir> <log file> [<options>]`` line on stdin per build (tab-separated;
options: JSON, ``quiet`` for ``-q``, ``verbose`` for ``-v``, ``env`` for the build's environment); one
``ok`` or ``failed <exit code>`` line on stdout for each. The log holds what the
command line prints (stdout and stderr), click's own error messages included.
"""

from __future__ import annotations

import json
import os
import sys


def _preload() -> None:
    import material.plugins.blog.plugin  # noqa: F401
    import material.plugins.search.plugin  # noqa: F401
    import material.plugins.tags.plugin  # noqa: F401
    import mkdocs.__main__  # noqa: F401
    import mkdocs_rss_plugin.plugin  # noqa: F401
    import pymdownx.highlight  # noqa: F401
    import pymdownx.superfences  # noqa: F401

    import journal_tools.mkdocs_plugin.plugin  # noqa: F401


def _build(config: str, site: str, log: str, quiet: bool = True, verbose: bool = False, env: dict | None = None) -> int:
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.chdir(os.path.dirname(config))  # as `mkdocs build` run beside the config file
            if env is not None:
                os.environ.clear()
                os.environ.update(env)
            from mkdocs.__main__ import cli

            try:  # click reports errors as the command line does, then exits with its code
                cli.main(args=["build", "--strict", *(["-q"] if quiet else []), *(["-v"] if verbose else []), "-f", config, "-d", site])
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:  # noqa: BLE001 - the log holds the traceback
            import traceback

            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def main() -> None:
    """Serve build requests from stdin until it closes."""
    _preload()
    for line in sys.stdin:
        config, site, log, *options = line.rstrip("\n").split("\t")
        code = _build(config, site, log, **(json.loads(options[0]) if options else {}))
        print("ok" if code == 0 else f"failed {code}", flush=True)


if __name__ == "__main__":
    main()
