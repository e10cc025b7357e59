"""Record a computed value so the book's prose can quote it (myst-nb's ``glue``).

This writes the same display record as ``myst_nb.glue`` without importing
myst-nb, so a chapter runs unchanged in Colab or plain Jupyter, where the
record simply shows the value.
"""

from __future__ import annotations

from typing import Any

from IPython.core.formatters import format_display_data
from IPython.display import display as ipy_display

_HIDDEN_PREFIX = "application/papermill.record/"


def glue(name: str, value: Any, display: bool = True) -> None:
    """Store ``value``'s display form under ``name``; ``{glue}`name``` pastes it.

    With ``display=False`` the value is stored but not shown in the cell output.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"glue needs a non-empty name, got {name!r}")
    bundle, metadata = format_display_data(value)
    prefix = "" if display else _HIDDEN_PREFIX
    metadata["scrapbook"] = {"name": name, "mime_prefix": prefix}
    ipy_display({prefix + k: v for k, v in bundle.items()}, raw=True, metadata=metadata)
