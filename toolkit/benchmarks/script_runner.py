"""Runs page scripts one after another in this one interpreter (measurement 5).

    python toolkit/benchmarks/script_runner.py SCRIPT [SCRIPT ...]

Each script runs with ``__name__ == "__main__"`` in a fresh temporary working
directory, its printout captured (as the page tests capture it).
"""

import contextlib
import io
import os
import runpy
import sys
import tempfile
import traceback


def main() -> int:
    sys.path.insert(0, os.path.abspath("snippets"))
    failed = 0
    for script in sys.argv[1:]:
        script = os.path.abspath(script)
        old = os.getcwd()
        with tempfile.TemporaryDirectory(prefix="bench-script-") as tmp:
            os.chdir(tmp)
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    runpy.run_path(script, run_name="__main__")
            except Exception:
                failed += 1
                print(f"{script} failed:\n{traceback.format_exc()}", file=sys.stderr)
            finally:
                os.chdir(old)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
