"""Guards for journal_tools/compat: each touch of another library's internals still holds.

A guard per compat function, failing with the library, its version and what changed, so a
dependency update that breaks a touch fails CI; where it can, a guard drives the library's real
code path (the live-reload server, nbconvert, Material's excerpts) rather than looking for names.
"""

from __future__ import annotations

import ast
import datetime as dt
import inspect
import json
import logging
import re
import shutil
import sys
import threading
import time
import tomllib
import urllib.error
import urllib.request
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace

import pytest
from packaging.requirements import Requirement

from journal_tools.compat import (
    CompatError,
    blog,
    installed,
    jupyter,
    livereload,
    mkdocs_config,
    mkdocs_log,
    pages,
    rss,
    theme_patches,
)

TOOLKIT = Path(__file__).resolve().parents[2]
PACKAGE = TOOLKIT / "src" / "journal_tools"
COMPAT = PACKAGE / "compat"
WHY = "replace it (the guards of toolkit/tests/compat/test_compat.py)"


def expect(condition, dist: str, what: str) -> None:
    """Fail with ``<dist> <version>: <what>`` (no traceback: the message is the report)."""
    if not condition:
        pytest.fail(f"{installed(dist)}: {what}", pytrace=False)


def params(func) -> list[str]:
    return list(inspect.signature(func).parameters)


# -- the ranges in pyproject.toml are the versions these guards were run on -----

def _dependencies() -> list[Requirement]:
    project = tomllib.loads((TOOLKIT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [Requirement(r) for r in project["dependencies"]]


def test_every_direct_dependency_is_bounded_above():
    unbounded = [str(r) for r in _dependencies() if not any(s.operator in ("<", "<=", "==", "~=") for s in r.specifier)]
    assert not unbounded, f"pyproject.toml: no upper bound on {', '.join(unbounded)}"


def test_installed_versions_are_within_the_checked_ranges():
    """`make setup` installs the package with --no-deps, so nothing else checks the ranges: a pin moved
    past a bound (a Dependabot update) fails here until the guards below pass and the bound moves."""
    outside = []
    for req in _dependencies():
        try:
            version = metadata.version(req.name)
        except metadata.PackageNotFoundError:
            outside.append(f"{req.name} is not installed")
            continue
        if not req.specifier.contains(version, prereleases=True):
            outside.append(f"{req.name} {version} is outside pyproject.toml's {req.specifier}")
    assert not outside, ("; ".join(outside) + ": run toolkit/tests/compat/test_compat.py on it, fix what fails "
                         "(journal_tools/compat), then move the bound")


# -- one place: no other module touches another library's private names ----------

def _third_party(module: str) -> bool:
    top = module.split(".")[0]
    return top != "journal_tools" and top not in sys.stdlib_module_names


def _third_party_names(tree: ast.Module) -> set[str]:
    """Names a module binds by importing another library (not journal_tools, not the standard library)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.asname or a.name.split(".")[0] for a in node.names if _third_party(a.name)}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and _third_party(node.module or ""):
            names |= {a.asname or a.name for a in node.names}
    return names


def _is_code(value: ast.expr, functions: set[str], params: set[str]) -> bool:
    """Is ``value`` code put in place of an object's own: a lambda, a function of this module, or what
    calling one, or a wrapper factory handed in as a parameter (``around(build)``), returns?"""
    if isinstance(value, ast.Lambda):
        return True
    if isinstance(value, ast.Name):
        return value.id in functions
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in functions | params


def _private_touches(path: Path, root: Path = PACKAGE.parent) -> list[str]:
    """What only compat/ may do to another library: read its ``_private`` names, assign into its modules
    or classes, and patch its objects: code (a function, a lambda, a wrapper) set as an attribute of an
    object that is not this module's own (``page.render = checked``, ``server.builder = wrap(b)``), or
    ``setattr`` on one. Setting a documented data attribute (``page.content = html``) is public API."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    # The standard library's underscore names used here are documented API (os._exit): not a
    # third party's internals, which is what this finder is for.
    stdlib = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
              if a.name.split(".")[0] in sys.stdlib_module_names}
    classes = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    # Instances this module makes of its own classes (fm = FrontMatter(...)) are its own too.
    made = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
            and getattr(n.value.func, "id", None) in classes for t in n.targets if isinstance(t, ast.Name)}
    own = classes | made | {"self", "cls"} | stdlib
    functions = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    params = {a.arg for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
              for a in n.args.args + n.args.kwonlyargs}
    imported = _third_party_names(tree)
    where = path.relative_to(root)
    found = []
    for node in sorted(ast.walk(tree), key=lambda n: getattr(n, "lineno", 0)):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            base = node.value
            if not (isinstance(base, ast.Name) and base.id in own) and not (
                    isinstance(base, ast.Call) and getattr(base.func, "id", "") == "super"):
                found.append(f"{where}:{node.lineno}: reads .{node.attr}")
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if not isinstance(target, ast.Attribute) or (isinstance(target.value, ast.Name) and target.value.id in own):
                    continue
                if isinstance(target.value, ast.Name) and target.value.id in imported:
                    found.append(f"{where}:{node.lineno}: assigns {target.value.id}.{target.attr}")
                elif _is_code(node.value, functions, params):
                    found.append(f"{where}:{node.lineno}: patches {ast.unparse(target)}")
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "setattr" and node.args and \
                not (isinstance(node.args[0], ast.Name) and node.args[0].id in own):
            found.append(f"{where}:{node.lineno}: setattr on {ast.unparse(node.args[0])}")
    return found


def test_no_module_outside_compat_touches_private_names():
    found = [t for path in sorted(PACKAGE.rglob("*.py")) if COMPAT not in path.parents for t in _private_touches(path)]
    assert not found, "route these through journal_tools/compat (with a guard here):\n" + "\n".join(found)


def test_the_private_touch_finder_finds_them(tmp_path):
    planted = tmp_path / "journal_tools" / "planted.py"
    planted.parent.mkdir()
    planted.write_text("import mkdocs_jupyter.plugin as jp\nfrom x import y\n\n"
                       "def f(server, page, around):\n    server._epoch_cond.wait()\n    jp.key = 1\n    setattr(y, 'z', 2)\n"
                       "    self._mine = 3\n    page.content = '<p>'\n\n"
                       "    def checked(config, files):\n        pass\n\n"
                       "    page.render = checked\n    server.builder = around(server.builder)\n    page.toc = lambda: 1\n",
                       encoding="utf-8")
    assert _private_touches(planted, tmp_path) == [
        "journal_tools/planted.py:5: reads ._epoch_cond", "journal_tools/planted.py:6: assigns jp.key",
        "journal_tools/planted.py:7: setattr on y", "journal_tools/planted.py:14: patches page.render",
        "journal_tools/planted.py:15: patches server.builder", "journal_tools/planted.py:16: patches page.toc"]


def _compat_calls(tree: ast.Module) -> set[str]:
    """``module.function`` of every compat function a test module calls: ``jupyter.cache_path(...)`` with
    ``from journal_tools.compat import jupyter`` (or ``import journal_tools.compat.jupyter as j``), or
    ``cache_path(...)`` with ``from journal_tools.compat.jupyter import cache_path``."""
    modules, functions = {}, {}  # local name -> compat module; local name -> "module.function"
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "journal_tools.compat":
            modules |= {a.asname or a.name: a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("journal_tools.compat."):
            module = node.module.rsplit(".", 1)[1]
            functions |= {a.asname or a.name: f"{module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            modules |= {a.asname: a.name.rsplit(".", 1)[1] for a in node.names
                        if a.name.startswith("journal_tools.compat.") and a.asname}
    called = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in modules:
            called.add(f"{modules[func.value.id]}.{func.attr}")
        elif isinstance(func, ast.Name) and func.id in functions:
            called.add(functions[func.id])
    return called


def _compat_functions() -> list[str]:
    """``module.function`` of every public function of journal_tools/compat."""
    found = []
    for path in sorted(COMPAT.glob("*.py")):
        if path.stem == "__init__":
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                found.append(f"{path.stem}.{node.name}")
    return found


def test_every_compat_function_has_a_guard():
    """Some test calls each compat function (parsed, not matched as text: a name in a comment or a
    string counts for nothing); the guards themselves drive the library's real code."""
    called = set().union(*(_compat_calls(ast.parse(p.read_text(encoding="utf-8"))) for p in (TOOLKIT / "tests").rglob("*.py")))
    unguarded = [f for f in _compat_functions() if f not in called]
    assert not unguarded, f"compat functions no test calls: {', '.join(unguarded)}"


def test_the_guard_finder_reads_calls_not_text():
    tree = ast.parse("from journal_tools.compat import jupyter as j, rss\nfrom journal_tools.compat.pages import replace_render\n"
                     "# rss.reset_between_builds(config)\nX = 'jupyter.cache_path('\n"
                     "def test():\n    j.cache_path(1, 2)\n    replace_render(p, r)\n    rss.other\n")
    assert _compat_calls(tree) == {"jupyter.cache_path", "pages.replace_render"}


# -- MkDocs: the live-reload server (compat/livereload.py) ------------------------

@pytest.fixture
def live_server(tmp_path):
    """MkDocs' LiveReloadServer serving tmp_path on a free port, its build loop running; its builds counted."""
    from mkdocs.livereload import LiveReloadServer

    (tmp_path / "page").mkdir()
    (tmp_path / "page" / "index.html").write_bytes(b"<html><body><p>built</p></body></html>")
    builds = threading.Semaphore(0)
    server = LiveReloadServer(builder=builds.release, host="127.0.0.1", port=0, root=str(tmp_path))
    server.watch(str(tmp_path / "page"))  # as `mkdocs serve` does: with a watched path, pages get the script
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    while not server.serve_thread.is_alive():  # serve() starts it once the socket is bound
        time.sleep(0.01)
    server.builds = builds
    yield server
    server.shutdown()
    thread.join(timeout=10)


def _get(server, path: str) -> tuple[int, bytes]:
    host, port = server.server_address[:2]
    try:
        with urllib.request.urlopen(f"http://{host}:{port}{path}", timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def test_livereload_server_has_what_compat_reads(live_server):
    for name, kind in (("_epoch_cond", type(threading.Condition())), ("_rebuild_cond", type(threading.Condition())),
                       ("_visible_epoch", int), ("_wanted_epoch", int), ("_want_rebuild", bool)):
        expect(isinstance(getattr(live_server, name, None), kind), "mkdocs",
               f"LiveReloadServer.{name} is not a {kind.__name__} (journal_tools/compat/livereload.py relies on it)")
    expect(params(live_server._inject_js_into_html) == ["content", "epoch"], "mkdocs",
           "LiveReloadServer._inject_js_into_html no longer takes (content, epoch)")


def test_livereload_request_rebuild_runs_the_builder_and_moves_the_epoch(live_server):
    before = livereload.visible_epoch(live_server)
    livereload.request_rebuild(live_server)
    expect(live_server.builds.acquire(timeout=10), "mkdocs",
           "setting LiveReloadServer._want_rebuild under _rebuild_cond no longer starts a rebuild "
           "(journal_tools/compat/livereload.py request_rebuild)")
    for _ in range(100):  # the epoch moves once the builder has returned
        if livereload.visible_epoch(live_server) > before:
            break
        time.sleep(0.05)
    expect(livereload.visible_epoch(live_server) > before, "mkdocs",
           "a finished rebuild no longer moves LiveReloadServer._visible_epoch (journal_tools/compat/livereload.py)")


def test_livereload_script_is_the_one_the_server_gives_its_pages(live_server):
    epoch = livereload.visible_epoch(live_server)
    page = livereload.with_livereload_script(live_server, b"<html><body><p>x</p></body></html>", epoch)
    expect(page.startswith(b"<html><body><p>x</p><script>") and page.endswith(b"</script></body></html>")
           and f"livereload({epoch},".encode() in page, "mkdocs",
           "LiveReloadServer._inject_js_into_html no longer puts the polling script for the epoch before </body>")
    status, served = _get(live_server, "/page/")
    expect(status == 200 and f"livereload({epoch},".encode() in served, "mkdocs",
           "the server's own pages no longer carry the script with_livereload_script adds")


def test_error_page_is_served_through_the_server_app(live_server, journal):
    """journal_tools.serve.error_pages wraps the server's request handler (wsgiref's get_app/set_app) and serves
    the build error with the live-reload script, on the real server."""
    from journal_tools.serve import error_pages
    from journal_tools.serve import state as serve
    settings, _ = journal
    state = serve.ServeState(settings)
    error_pages.install_error_pages(live_server, state)
    status, body = _get(live_server, "/page/")
    assert status == 200 and b"built" in body
    state.build_error = "docs/x.md:3: bad TeX"
    status, body = _get(live_server, "/page/")
    expect(status == 500 and b"docs/x.md:3: bad TeX" in body and b"livereload(" in body, "mkdocs",
           f"the error page no longer comes through LiveReloadServer's app (got {status}: {body[:200]!r})")
    assert _get(live_server, "/livereload/1/1")[0] == 200  # polling still reaches the server's own handler


def test_a_missing_private_name_is_named_with_the_library_version():
    with pytest.raises(CompatError, match=r"^mkdocs \d+\.\d+\S*: object has no '_rebuild_cond', .* ask for a rebuild"):
        livereload.request_rebuild(object())


# -- MkDocs: a page's render replaced on the instance (compat/pages.py) ------------

def test_build_calls_render_through_the_page_instance():
    import mkdocs.commands.build as build
    from mkdocs.structure.pages import Page

    expect(params(Page.render) == ["self", "config", "files"], "mkdocs", "Page.render no longer takes (config, files)")
    expect("page.render(config, files)" in inspect.getsource(build), "mkdocs",
           "mkdocs.commands.build no longer calls page.render(config, files) on the page: "
           "a render replaced by journal_tools/compat/pages.py replace_render would not run")
    page = SimpleNamespace(render=None)
    pages.replace_render(page, len)
    assert page.render is len


# -- mkdocs-rss-plugin: its per-build state reset between serve rebuilds (compat/rss.py) --

RSS_SITE = """\
site_name: t
site_url: https://example.org/j/
theme: material
plugins:
  - blog:
      post_excerpt: required
  - rss:
      match_path: "blog/posts/.*"
      use_git: false
      date_from_meta:
        as_creation: date
        as_update: date
        datetime_format: "%Y-%m-%d"
"""


def test_rss_state_is_fresh_at_each_rebuild(tmp_path):
    """Two builds with the same plugin instances, as ``mkdocs serve`` rebuilds: the feed holds each post once."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    (tmp_path / "mkdocs.yml").write_text(RSS_SITE, encoding="utf-8")
    posts = tmp_path / "docs" / "blog" / "posts"
    posts.mkdir(parents=True)
    (tmp_path / "docs" / "blog" / "index.md").write_text("# Blog\n", encoding="utf-8")
    for name, day in (("a", "01"), ("b", "02")):
        (posts / f"{name}.md").write_text(f"---\ndate: 2025-01-{day}\n---\n\n# Post {name}\n\nHead.\n\n<!-- more -->\n\nTail.\n",
                                          encoding="utf-8")
    config = load_config(str(tmp_path / "mkdocs.yml"), site_dir=str(tmp_path / "site"))
    config.plugins.on_startup(command="serve", dirty=False)  # one set of plugin instances for every build
    feed = tmp_path / "site" / "feed_rss_created.xml"
    build(config)
    first = feed.read_text(encoding="utf-8").count("<item>")
    rss.reset_between_builds(config, "serve")
    build(config)
    again = feed.read_text(encoding="utf-8").count("<item>")
    expect(first == 2 and again == first, "mkdocs-rss-plugin", f"a rebuild's feed has {again} items, the first build's {first}")


def test_rss_feed_logo_is_the_favicon_under_site_url(tmp_path):
    """With no ``image`` the 1.19 feed says ``<url>None</url>``; compat.rss sets it before the plugin's on_config reads it."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    (tmp_path / "mkdocs.yml").write_text(RSS_SITE, encoding="utf-8")
    (tmp_path / "docs" / "blog" / "posts").mkdir(parents=True)
    (tmp_path / "docs" / "blog" / "index.md").write_text("# Blog\n", encoding="utf-8")
    config = load_config(str(tmp_path / "mkdocs.yml"), site_dir=str(tmp_path / "site"))
    config.plugins.on_startup(command="build", dirty=False)  # as `mkdocs build` starts the plugins
    rss.logo_under_site_url(config)
    build(config)
    feed = (tmp_path / "site" / "feed_rss_created.xml").read_text(encoding="utf-8")
    expect("<url>https://example.org/j/assets/images/favicon.png</url>" in feed, "mkdocs-rss-plugin",
           "the feed's logo is not the image compat.rss.logo_under_site_url set before on_config")


def test_rss_keeps_its_per_build_lists_from_on_startup():
    from mkdocs_rss_plugin.plugin import GitRssPlugin

    source = inspect.getsource(GitRssPlugin.on_startup)
    expect(all(re.search(rf"self\.{name}\b.*=", source) for name in ("pages_to_filter", "feed_created", "feed_updated")),
           "mkdocs-rss-plugin", "on_startup no longer makes pages_to_filter and the feeds: compat.rss.reset_between_builds "
           "must reset them another way (or no longer needs to)")


# -- mkdocs-jupyter and nbconvert (compat/jupyter.py) --------------------------------

@pytest.fixture
def restore_jupyter(monkeypatch):
    """Put mkdocs-jupyter's globals back after the test (the installs replace them)."""
    import mkdocs_jupyter.nbconvert2 as nbconvert2
    import mkdocs_jupyter.plugin as plugin

    for module, name in ((nbconvert2, "HTMLExporter"), (nbconvert2, "SubCell"), (plugin, "_compute_cache_key")):
        if hasattr(module, name):  # else compat raises before replacing anything
            monkeypatch.setattr(module, name, getattr(module, name))


def test_mkdocs_jupyter_has_the_globals_compat_replaces():
    import mkdocs_jupyter.nbconvert2 as nbconvert2
    import mkdocs_jupyter.plugin as plugin
    from nbconvert.exporters.html import HTMLExporter
    from nbconvert.preprocessors import Preprocessor

    source = inspect.getsource(nbconvert2.nb2html)
    expect("HTMLExporter(" in source and "[SubCell]" in source, "mkdocs-jupyter",
           "nb2html no longer builds HTMLExporter and SubCell from its module globals (journal_tools/compat/jupyter.py)")
    expect(issubclass(jupyter.original(nbconvert2, "HTMLExporter", WHY), HTMLExporter)
           and issubclass(jupyter.original(nbconvert2, "SubCell", WHY), Preprocessor), "mkdocs-jupyter",
           "mkdocs_jupyter.nbconvert2.HTMLExporter / SubCell are no nbconvert HTMLExporter / Preprocessor")
    expect(params(jupyter.original(plugin, "_compute_cache_key", WHY)) == ["nb_path", "config", "exec_nb"]
           and params(plugin._get_cache_path) == ["cache_dir", "cache_key"], "mkdocs-jupyter",
           "plugin._compute_cache_key(nb_path, config, exec_nb) / _get_cache_path(cache_dir, cache_key) changed")
    expect("_compute_cache_key(" in inspect.getsource(plugin.Plugin.on_pre_page), "mkdocs-jupyter",
           "Plugin.on_pre_page no longer calls the module's _compute_cache_key: the snippet-aware key is not used")


def test_nbconvert_calls_the_markdown2html_filter():
    from nbconvert.exporters.html import HTMLExporter

    expect(params(HTMLExporter.markdown2html) == ["self", "context", "source"], "nbconvert",
           "HTMLExporter.markdown2html no longer takes (context, source)")
    expect(("markdown2html", "markdown2html") in [(n, getattr(f, "__name__", "")) for n, f in HTMLExporter().default_filters()],
           "nbconvert", "HTMLExporter no longer registers its own markdown2html method as the markdown2html filter")


def _notebook(path: Path) -> Path:
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    code = new_code_cell("print(1)")
    code.outputs = [new_output("stream", name="stdout", text="tensor([1,\n"), new_output("stream", name="stdout", text="2])\n")]
    nb = new_notebook(cells=[new_markdown_cell("# T\n\nInline $x^2$ and\n\n$$\n\\frac{a}{b}\n$$\n"), code],
                      metadata={"kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}})
    nbformat.write(nb, path)
    return path


def test_notebook_pages_get_mathml_stable_ids_and_merged_streams(restore_jupyter, tmp_path):
    """The real conversion path: mkdocs-jupyter's nb2html with the site's exporter and SubCell installed."""
    from mkdocs_jupyter.nbconvert2 import nb2html

    from journal_tools.mkdocs_plugin import nbids, notebooks

    from fixture_journal import FIXTURE

    notebooks.install_markdown(mkdocs_config.load(FIXTURE / "mkdocs.yml"))
    nbids.install()
    html = nb2html(str(_notebook(tmp_path / "nb.ipynb")), execute=False)
    shown = re.sub(r' alttext="[^"]*"', "", html)  # a formula's TeX rides along for search
    expect(html.count("<math") == 2 and "$x^2$" not in html and "\\frac" not in shown, "nbconvert",
           "nbconvert no longer renders notebook Markdown cells through the exporter's markdown2html filter: "
           "notebook pages would ship raw TeX (journal_tools/compat/jupyter.py replace_exporter)")
    import nbformat

    ids = [nbids.cell_id(i, c) for i, c in enumerate(nbformat.read(tmp_path / "nb.ipynb", as_version=4).cells)]
    expect(all(f'id="cell-id={i}"' in html for i in ids), "mkdocs-jupyter",
           "nb2html no longer runs the SubCell preprocessor it looks up: cell ids are random again "
           "(journal_tools/compat/jupyter.py replace_subcell)")
    expect("tensor([1,\n2])" in html, "nbconvert", "split stdout streams are no longer merged into one output")


def _jupyter_plugin(tmp_path, **options):
    from mkdocs_jupyter.plugin import Plugin

    plugin = Plugin()
    errors, warnings = plugin.load_config({"cache": True, "cache_dir": str(tmp_path / "cache"), **options})
    expect(not errors and not warnings, "mkdocs-jupyter", f"its options changed: {errors or warnings} "
           "(journal_tools/compat/jupyter.py reads cache, cache_dir, execute, execute_ignore)")
    plugin.on_pre_build(config=None)
    return plugin


@pytest.mark.parametrize("options", [{"execute": True}, {"execute": True, "execute_ignore": ["*skip*"]}])
def test_cache_path_is_the_one_mkdocs_jupyter_uses(restore_jupyter, tmp_path, options):
    from journal_tools.core.record.inputs import Record
    from journal_tools.core.settings import Settings
    from journal_tools.mkdocs_plugin import notebook_cache
    settings = Settings(config_file=tmp_path / "mkdocs.yml", root=tmp_path, docs_dir=tmp_path, site_url="",
                        markdown_extensions=(), mdx_configs={}, snippet_dirs=(), blog=None, cache_dir=tmp_path / ".cache")
    notebook_cache.install(settings, Record(tmp_path))  # the key of what the code read, as the plugin installs it
    nb = tmp_path / "skip.py"
    nb.write_text("# %%\nprint(1)\n", encoding="utf-8")
    plugin = _jupyter_plugin(tmp_path, **options)
    page = SimpleNamespace(file=SimpleNamespace(abs_src_path=str(nb), src_path=nb.name), abs_url="/skip/")
    plugin.on_pre_page(page, config=None, files=None)
    ours = jupyter.cache_path(SimpleNamespace(plugins={"mkdocs-jupyter": plugin}), str(nb))
    expect(plugin._used_cache_paths == {ours}, "mkdocs-jupyter",
           f"its on_pre_page uses the cache entry {plugin._used_cache_paths}, journal_tools/compat/jupyter.py "
           f"cache_path computes {ours}")
    import mkdocs_jupyter.plugin as module

    assert ours.name != module._get_cache_path("", jupyter.original(module, "_compute_cache_key", WHY)(
        str(nb), plugin.config, plugin.config["execute"])).name  # the wrapped key, not the library's own


def test_render_detached_writes_the_cache_and_leaves_the_page(restore_jupyter, tmp_path):
    nb = tmp_path / "nb.py"
    nb.write_text("# %% [markdown]\n# # T\n\n# %%\nprint(1)\n", encoding="utf-8")
    plugin = _jupyter_plugin(tmp_path)
    page = SimpleNamespace(file=SimpleNamespace(abs_src_path=str(nb), src_path=nb.name), abs_url="/nb/")
    plugin.on_pre_page(page, config=None, files=None)
    jupyter.render_detached(page.render, None, None)
    path = jupyter.cache_path(SimpleNamespace(plugins={"mkdocs-jupyter": plugin}), str(nb))
    expect(path.is_file() and "content" in json.loads(path.read_text(encoding="utf-8")), "mkdocs-jupyter",
           "a notebook page's render, run on a stand-in page, no longer writes its cache entry")
    expect(not hasattr(page, "content"), "mkdocs-jupyter", "a notebook page's render now touches more than its first argument")
    with pytest.raises(CompatError, match="no bound method"):
        jupyter.render_detached(len, None, None)


def test_replacements_build_on_the_library_original(restore_jupyter):
    import mkdocs_jupyter.nbconvert2 as nbconvert2

    own = jupyter.original(nbconvert2, "SubCell", WHY)
    jupyter.replace_subcell(lambda original: type("A", (original,), {}))
    jupyter.replace_subcell(lambda original: type("B", (original,), {}))
    assert nbconvert2.SubCell.__name__ == "B" and nbconvert2.SubCell.__mro__[1] is own
    jupyter.replace_exporter(lambda original: original)
    jupyter.wrap_cache_key(lambda original: original)
    assert nbconvert2.HTMLExporter is jupyter.original(nbconvert2, "HTMLExporter", WHY)


# -- Material: templates edited (compat/theme_patches.py) ------------------------------

def _material_copy(tmp_path) -> Path:
    copy = tmp_path / "material"
    shutil.copytree(theme_patches.material_templates(), copy, ignore=shutil.ignore_patterns(".icons", "assets"))
    return copy


@pytest.mark.parametrize("name, old, new, caught", [
    ("blog.html", "{{ page.content }}\n      </header>", "{{ page.content }}</header>", "blog.html holds"),
    ("blog.html", None, None, "has no blog.html any more"),
    ("partials/source.html", 'data-md-component="source"', 'data-md-component="repository"', "source.html holds"),
])
def test_a_changed_material_original_stops_the_build_naming_it(tmp_path, name, old, new, caught):
    material = _material_copy(tmp_path)
    text = (material / name).read_text(encoding="utf-8")
    if old is None:
        (material / name).unlink()
    else:
        assert old in text
        (material / name).write_text(text.replace(old, new), encoding="utf-8")
    with pytest.raises(theme_patches.PatchError, match=r"^mkdocs-material \S+") as err:
        theme_patches.patched_templates(material)
    assert caught in str(err.value) and "journal_tools/compat/theme_patches.py" in str(err.value)


def test_an_unused_patch_is_caught(tmp_path):
    material = _material_copy(tmp_path)
    for path in material.rglob("*.html"):
        path.write_text(path.read_text(encoding="utf-8").replace('"partials/source.html"', '"partials/repo.html"'),
                        encoding="utf-8")
    with pytest.raises(theme_patches.PatchError, match="includes partials/source.html any more, so its edit is never used"):
        theme_patches.patched_templates(material)


# -- pymdown-extensions and Markdown: what markdown_math and includes build on ----------

def test_arithmatex_hooks_markdown_math_overrides():
    import markdown
    from pymdownx.arithmatex import BlockArithmatexProcessor, InlineArithmatexPattern

    expect(params(BlockArithmatexProcessor.generic_output) == ["self", "parent", "math"], "pymdown-extensions",
           "BlockArithmatexProcessor.generic_output(parent, math) changed (journal_tools/core/markup/markdown_math.py overrides it)")
    expect(params(InlineArithmatexPattern.handleMatch) == ["self", "m", "data"], "pymdown-extensions",
           "InlineArithmatexPattern.handleMatch(m, data) changed (journal_tools/core/markup/markdown_math.py overrides it)")
    md = markdown.Markdown(extensions=["journal_tools.core.markup.markdown_math"])
    expect(hasattr(md.inlinePatterns["arithmatex-inline"], "compiled_re")
           and hasattr(md.parser.blockprocessors["arithmatex-block"], "pattern"), "pymdown-extensions",
           "arithmatex no longer registers 'arithmatex-inline' (compiled_re) and 'arithmatex-block' (pattern)")
    html = md.convert("Inline $a^2$ and \\(b\\), escaped \\$5.\n\n$$\nc\n$$\n\n\\begin{align}\nx &= 1\n\\end{align}\n")
    expect(html.count("<math") == 4 and "arithmatex" not in html and "$5" in html, "pymdown-extensions",
           f"arithmatex's processors no longer hand every formula to journal_tools/core/markup/markdown_math.py: {html}")


def test_snippet_preprocessor_methods_includes_uses(journal):
    settings, _ = journal
    pre = settings.snippet_preprocessor()
    missing = [m for m in ("parse_snippet_target", "get_snippet_path", "run") if not callable(getattr(pre, m, None))]
    expect(not missing, "pymdown-extensions", f"SnippetPreprocessor has no {', '.join(missing)} "
           "(journal_tools/core/page/includes.py locates each include's files with them)")
    parsed = pre.parse_snippet_target("demo.py:two")
    expect(isinstance(parsed, dict) and parsed.get("path") == "demo.py" and parsed.get("section") == "two",
           "pymdown-extensions", f"SnippetPreprocessor.parse_snippet_target('demo.py:two') gives {parsed!r}")
    found = pre.get_snippet_path("demo.py")
    expect(found and Path(found) == settings.snippet_dirs[0] / "demo.py", "pymdown-extensions",
           f"SnippetPreprocessor.get_snippet_path('demo.py') gives {found!r}")
    expect(pre.run(['--8<-- "demo.py:two"']) == ["x = 2"], "pymdown-extensions",
           "SnippetPreprocessor.run no longer expands one include line to the section's lines")


# -- MkDocs: the server's builder and app replaced (compat/livereload.py wrap_builder, wrap_app) --

def test_wrapped_builder_is_what_the_server_rebuilds_with(live_server):
    ran = threading.Event()

    def around(build):
        def builder(*args, **kwargs):
            ran.set()
            return build(*args, **kwargs)
        return builder

    livereload.wrap_builder(live_server, around)
    livereload.request_rebuild(live_server)
    expect(ran.wait(timeout=10) and live_server.builds.acquire(timeout=10), "mkdocs",
           "LiveReloadServer no longer rebuilds through its `builder` attribute: a wrapped builder never ran "
           "(journal_tools/compat/livereload.py wrap_builder; build errors would leave the browser waiting)")


def test_wrapped_app_answers_the_servers_requests(live_server):
    def around(app):
        def request(environ, start_response):
            if environ.get("PATH_INFO") == "/wrapped/":
                start_response("200 OK", [("Content-Type", "text/plain")])
                return [b"ours"]
            return app(environ, start_response)
        return request

    livereload.wrap_app(live_server, around)
    expect(_get(live_server, "/wrapped/") == (200, b"ours"), "mkdocs",
           "LiveReloadServer no longer answers through wsgiref's get_app/set_app (journal_tools/compat/livereload.py wrap_app)")
    assert _get(live_server, "/page/")[0] == 200  # the server's own pages still come through


# -- Material's blog: its config classes run on our options and posts (compat/blog.py) --------

def test_post_errors_are_the_blog_post_configs():
    """The blog's PostConfig checks what the build checks; a post with a list of categories passes."""
    for key, value, said in (("categories", 7, "list"), ("readtime", "soon", "type")):
        errors = dict(blog.post_errors({"date": dt.date(2025, 7, 1), key: value}, "p.md"))
        expect(list(errors) == [key] and said in errors[key], "mkdocs-material",
               f"PostConfig no longer rejects {key}: {value!r} as before (got {errors})")
    expect(blog.post_errors({"date": dt.date(2025, 7, 1), "categories": ["Attention"], "draft": True}, "p.md") == [],
           "mkdocs-material", "PostConfig rejects a post the journal publishes")


def test_option_errors_are_the_blog_configs(tmp_path):
    options, errors = blog.option_errors({"post_excerpt": "required"}, str(tmp_path / "mkdocs.yml"))
    expect(errors == [] and options["post_dir"] == "{blog}/posts" and options["post_excerpt_separator"] == "<!-- more -->",
           "mkdocs-material", f"BlogConfig's defaults changed (post_dir {options.get('post_dir')!r}, "
           f"separator {options.get('post_excerpt_separator')!r}): journal_tools/core/settings.py blog_settings reads them")
    _, errors = blog.option_errors({"post_excerpt": "sometimes"}, str(tmp_path / "mkdocs.yml"))
    expect([k for k, _ in errors] == ["post_excerpt"], "mkdocs-material", f"BlogConfig accepts post_excerpt: sometimes ({errors})")


# -- MkDocs: mkdocs.yml read into core Settings (compat/mkdocs_config.py) ----------------------

def test_from_config_of_a_running_build_equals_load(journal):
    from mkdocs.config import load_config

    settings, _ = journal
    config = load_config(str(settings.config_file))
    built = mkdocs_config.from_config(config)
    expect(built.docs_dir == settings.docs_dir and built.snippet_dirs == settings.snippet_dirs
           and built.blog == settings.blog and built.markdown_extensions == settings.markdown_extensions, "mkdocs",
           "a running build's config no longer gives the settings mkdocs.yml gives (journal_tools/compat/mkdocs_config.py)")


def test_read_yaml_reads_mkdocs_tags_as_mkdocs_does(tmp_path):
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: !ENV [JOURNAL_NO_SUCH_VARIABLE, 'fallback']\nnav:\n  - a.md\n", encoding="utf-8")
    raw = mkdocs_config.read_yaml(config)
    expect(raw == {"site_name": "fallback", "nav": ["a.md"]}, "mkdocs",
           f"MkDocs' YAML loader no longer reads !ENV as journal_tools/compat/mkdocs_config.py read_yaml expects: {raw}")


# -- MkDocs: its link warnings given file:line (compat/mkdocs_log.py) --------------------------

def test_link_warnings_of_a_real_build_get_the_file_and_line(journal, caplog):
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    settings, write = journal
    write("index.md", "# Home\n\nSee [the missing page](missing.md).\n")
    mkdocs_log.LinkLocator.install(settings.docs_dir, settings.root)
    config = load_config(str(settings.config_file), site_dir=str(settings.root / "site"))
    config.plugins = type(config.plugins)()  # no blog: one page, one warning
    with caplog.at_level(logging.INFO, logger="mkdocs.structure.pages"):
        build(config)
    messages = [r.getMessage() for r in caplog.records if "missing.md" in r.getMessage()]
    expect(messages and messages[0].startswith("docs/index.md:3: Doc file 'index.md' contains a link 'missing.md'"), "mkdocs",
           f"MkDocs' broken-link warning no longer reads as journal_tools/compat/mkdocs_log.py parses it: {messages}")


def test_quiet_rebuilds_leaves_out_the_lines_mkdocs_logs_for_each_rebuild(live_server, journal, caplog):
    """journal_tools.serve.save_log's one line per save stands for these: each must still be worded
    as compat/mkdocs_log.py matches it, and be left out once quiet_rebuilds() is on."""
    import inspect

    import mkdocs.commands.serve
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    settings, _ = journal
    config = load_config(str(settings.config_file), site_dir=str(settings.root / "site"))
    config.plugins = type(config.plugins)()

    def one_rebuild():
        livereload.request_rebuild(live_server)
        live_server.builds.acquire(timeout=10)
        build(config, serve_url="http://127.0.0.1:8000/")  # as mkdocs serve builds
        time.sleep(0.5)  # the server logs "Reloading browsers" once its builder has returned

    names = ("mkdocs.livereload", "mkdocs.commands.build", "mkdocs.commands.serve", "mkdocs.plugins.mkdocs_jupyter")
    try:
        with caplog.at_level(logging.INFO):
            one_rebuild()
            before = [r.getMessage() for r in caplog.records if r.name in names]
            caplog.clear()
            mkdocs_log.quiet_rebuilds()
            one_rebuild()
            logging.getLogger("mkdocs.plugins.mkdocs_jupyter").info("Cache hit: %s", "docs/notebooks/x.py")
            logging.getLogger("mkdocs.commands.build").warning("a warning still shows")
            after = [r.getMessage() for r in caplog.records if r.name in names]
    finally:
        for name in names:
            logger = logging.getLogger(name)
            logger.filters = [f for f in logger.filters if type(f).__module__ != mkdocs_log.__name__]
    for line in ("Detected file changes", "Reloading browsers", "Documentation built in"):
        expect(any(line in m for m in before), "mkdocs", f"MkDocs no longer logs {line!r} for a rebuild: {before}")
    expect('log.info("Building documentation...")' in inspect.getsource(mkdocs.commands.serve), "mkdocs",
           "mkdocs serve's builder no longer logs 'Building documentation...' (compat/mkdocs_log.py)")
    import mkdocs_jupyter.plugin

    expect('logger.info("Cache hit: %s", page.file.abs_src_path)' in inspect.getsource(mkdocs_jupyter.plugin)
           and mkdocs_jupyter.plugin.logger.name == "mkdocs.plugins.mkdocs_jupyter", "mkdocs-jupyter",
           "mkdocs-jupyter no longer logs 'Cache hit: <path>' on its logger (compat/mkdocs_log.py)")
    expect(after == ["a warning still shows"], "mkdocs",
           f"quiet_rebuilds() no longer leaves out MkDocs' lines for each rebuild: {after}")
    # A post served as a draft page for its front matter (mkdocs_plugin/plugin.py): MkDocs' and the RSS plugin's notes on it.
    import mkdocs.commands.build
    import mkdocs_rss_plugin.util

    expect("The following pages are being built only for the preview" in inspect.getsource(mkdocs.commands.build), "mkdocs",
           "MkDocs no longer words its note on preview-only pages as compat/mkdocs_log.py matches it")
    rss = inspect.getsource(mkdocs_rss_plugin.util)
    expect(mkdocs_rss_plugin.util.logger.logger.name == "mkdocs.plugins.[RSS-plugin]"
           and "Creation date of {in_page.file.abs_src_path} has not " in rss
           and "Dates could not be retrieved for page: {in_page.file.abs_src_path}." in rss, "mkdocs-rss-plugin",
           "mkdocs-rss-plugin no longer logs its notes on a page without a date as compat/mkdocs_log.py matches them")


# -- MkDocs' front-matter rule, which the core mirrors (core/page/frontmatter.py) -------------------

@pytest.mark.parametrize("text", [
    "---\ndate: 2025-07-01\n---\n# T\n", "---  \na: 1\n...\n\nbody\n", "---\n- a list\n---\nbody\n",
    "---\nnot: [closed\n---\nbody\n", "no front matter\n---\nx: 1\n---\n", "---\na: 1\n", "\n---\na: 1\n---\nb\n",
    "Title: MMD\n    more of it\nAuthor: x\n\n# Body\n", "Note: not meta?\nplain line\n\ntext\n", "  \n\ntext\n",
])
def test_the_core_splits_front_matter_as_mkdocs_does(text):
    from mkdocs.utils.meta import get_data

    from journal_tools.core.page import frontmatter

    expect(frontmatter.body(text) == get_data(text)[0], "mkdocs",
           f"mkdocs.utils.meta.get_data splits {text!r} otherwise than journal_tools/core/page/frontmatter.py body()")


# -- nbclient: a failing cell's message (compat/jupyter.py) -------------------------------------

def test_a_failing_cell_is_named_at_its_notebook_line(tmp_path):
    import nbclient
    import nbformat

    script = "# %%\nx = 1\n\n# %%\ny = 2\nraise ValueError('planted')\n"
    path = tmp_path / "nb.py"
    path.write_text(script, encoding="utf-8")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1"), nbformat.v4.new_code_cell("y = 2\nraise ValueError('planted')")])
    with pytest.raises(Exception) as caught:
        nbclient.NotebookClient(nb, timeout=60, kernel_name="python3").execute()
    exc = caught.value
    expect(jupyter.is_cell_error(exc), "nbclient", f"a failing cell no longer raises CellExecutionError ({type(exc).__name__})")
    expect(jupyter.cell_error_line(script, str(exc)) == 6, "nbclient",
           f"nbclient's message of a failing cell no longer reads as compat/jupyter.py parses it:\n{str(exc)[:400]}")
    found = jupyter.notebook_cell_message(exc, str(path), "docs/nb.py")
    expect((found.path, found.line, found.problem) == ("docs/nb.py", 6, "notebook cell raised ValueError: planted"),
           "nbclient", f"CellExecutionError no longer carries ename and evalue: {jupyter.notebook_cell_message(exc, str(path), 'docs/nb.py')}")
    assert not jupyter.is_cell_error(ValueError("x"))


def test_a_cell_past_its_limit_is_named_at_its_notebook_line(tmp_path):
    import nbclient
    import nbformat

    script = "# %%\nx = 1\n\n# %%\nwhile True:\n    pass\n"
    path = tmp_path / "nb.py"
    path.write_text(script, encoding="utf-8")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1"), nbformat.v4.new_code_cell("while True:\n    pass")])
    with pytest.raises(Exception) as caught:
        nbclient.NotebookClient(nb, timeout=2, kernel_name="python3").execute()
    exc = caught.value
    expect(jupyter.is_cell_error(exc), "nbclient", f"a cell past its limit no longer raises CellTimeoutError ({type(exc).__name__})")
    found = jupyter.notebook_cell_message(exc, str(path), "docs/nb.py")
    expect((found.path, found.line, found.problem) == ("docs/nb.py", 5, "notebook cell ran past its time limit, 2 s, and was stopped"),
           "nbclient", f"nbclient's message of a cell past its limit no longer reads as compat/jupyter.py parses it:\n{str(exc)[:400]}")


def test_core_post_addresses_are_the_blogs(journal):
    """core/page/address.py forms a post's address as the blog does (two posts with one address fail): the blog's own on_files
    gives each post its URL from its date and slug (slug:, title:, the first heading, else the file name)."""
    from mkdocs.config import load_config
    from mkdocs.structure.files import get_files

    from journal_tools.core.page import address

    settings, write = journal
    front = "---\ndate: 2025-07-01\n{}---\n\n"
    posts = [write(f"blog/posts/{name}.md", front.format(extra) + body) for name, extra, body in [
        ("heading", "", "# Softmax, by Hand!\n\nText.\n"),
        ("title-key", "title: A Title of Its Own\n", "# Heading\n"),
        ("slug-key", "slug: my-slug\n", "# Heading\n"),
        ("file_name_title", "", "Text without a heading.\n"),
        ("created", "", "# Created\n"),
    ]]
    posts[-1].write_text("---\ndate:\n  created: 2025-07-02\n  updated: 2025-07-09\n---\n\n# Created\n", encoding="utf-8")
    config = load_config(str(settings.config_file))
    config.plugins.on_startup(command="build", dirty=False)
    config = config.plugins.on_config(config)
    files = config.plugins.on_files(get_files(config), config=config)
    urls = {Path(f.abs_src_path): f.url for f in files if f.src_uri.endswith(".md")}  # posts too (left out of the nav here)
    ours = {post: address.of(post, settings).url + "/" for post in posts}
    expect(all(urls[post] == ours[post] for post in posts), "mkdocs-material",
           f"the blog's post URLs {[urls[p] for p in posts]} are not the addresses journal_tools/core/page/address.py forms "
           f"{list(ours.values())}: two posts with one address may go unnoticed")
