"""Running a page's code: the page as steps, the runs and their outputs, the seed check,
notebooks, the worker process, figures, the snippet modules a page imports, the render
check and the reuse of passed checks."""
