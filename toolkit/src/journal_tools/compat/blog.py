"""Material's blog plugin (9.8): its own config classes (``BlogConfig``, ``PostConfig``), run on what the
journal reads, so a mistake fails where the blog would, but at its line (the blog names only the file).
"""

from __future__ import annotations

import copy

__all__ = ["option_errors", "post_errors"]


def option_errors(options: dict, config_file: str) -> tuple[dict, list[tuple[str, str]]]:
    """(the blog's options with its defaults, [(option, error), ...]) as ``BlogConfig`` validates them."""
    from material.plugins.blog.config import BlogConfig  # imported when asked: Material's plugin package is slow to import

    config = BlogConfig(config_file_path=config_file)
    config.load_dict(options)
    failed, _warnings = config.validate()
    return dict(config), [(key, str(error)) for key, error in failed]


def post_errors(data: dict, path: str) -> list[tuple[str, str]]:
    """[(key, error), ...] of ``PostConfig``'s check of a post's front matter, on the keys it reads."""
    from material.plugins.blog.structure.config import PostConfig

    config = PostConfig(path)
    config.load_dict(copy.deepcopy({key: value for key, value in data.items() if key in config}))
    errors, _warnings = config.validate()
    return [(key, str(error)) for key, error in errors]
