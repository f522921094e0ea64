"""MkDocs hook: links from docs/ to the repository's own files (bench/, examples/, ...).

MkDocs checks links between pages; a link out of docs/ (`../bench/judge/README.md`) it can
only warn about. Here each such link must name a file or folder that exists in the
repository (the build fails otherwise, so these cannot rot either), and is pointed at the
repository's address (`extra.repository` in mkdocs.yml), or shown as its path without one.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

_LINK = re.compile(r"\[([^\]]*)\]\((\.\./[^)#\s]+)(#[^)\s]*)?\)")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    docs = Path(config["docs_dir"]).resolve()
    root = docs.parent
    here = posixpath.dirname(page.file.src_uri)
    repository = str(config["extra"].get("repository") or "").rstrip("/")

    def point(match: re.Match[str]) -> str:
        text, target, anchor = match[1], match[2], match[3] or ""
        path = (docs / here / target).resolve()
        if not path.exists() or docs in (path, *path.parents) or root not in path.parents:
            raise PluginError(f"{page.file.src_uri}: the link {target} names no repository file")
        relative = path.relative_to(root).as_posix()
        if repository:
            return f"[{text}]({repository}/{relative}{anchor})"
        return text if text.strip("`") == relative else f"{text} (`{relative}`)"

    return _LINK.sub(point, markdown)
