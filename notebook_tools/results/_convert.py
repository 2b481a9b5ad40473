"""From what a tool returns to a `RichResult`: a registry of converters users can extend.

Converters are looked up along the value's class hierarchy, by class or by a dotted name
("pandas.DataFrame" matches any class named DataFrame from a module under `pandas`), so the
defaults (pandas, matplotlib, PIL) never import those libraries: a value of theirs is already
imported when a tool returns it.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable
from typing import Any

from .._exceptions import ToolDefinitionError
from ._builders import binary
from ._kinds import RichResult
from ._tables import table

__all__ = ["Converter", "convert", "register_converter", "unregister_converter"]

log = logging.getLogger("notebook_tools")

Converter = Callable[[Any], RichResult]
_BY_TYPE: dict[type, Converter] = {}
_BY_NAME: dict[tuple[str, str], Converter] = {}  # (top-level package, class name) -> converter


def register_converter(kind: type | str, converter: Converter) -> None:
    """Show values of `kind` (a class, or "package.ClassName") through `converter`.

    The converter returns a `RichResult`; registering again replaces the earlier one.
    """
    if not callable(converter):
        raise ToolDefinitionError("the converter must be a function of the value returning an nt.RichResult")
    if isinstance(kind, type):
        _BY_TYPE[kind] = converter
    elif isinstance(kind, str) and "." in kind:
        package, name = kind.split(".", 1)[0], kind.rsplit(".", 1)[1]
        _BY_NAME[(package, name)] = converter
    else:
        raise ToolDefinitionError('kind must be a class or a dotted name like "pandas.DataFrame"')


def unregister_converter(kind: type | str) -> None:
    """Forget the converter of `kind` (no error when there is none)."""
    if isinstance(kind, type):
        _BY_TYPE.pop(kind, None)
    elif isinstance(kind, str) and "." in kind:
        _BY_NAME.pop((kind.split(".", 1)[0], kind.rsplit(".", 1)[1]), None)
    else:
        raise ToolDefinitionError('kind must be a class or a dotted name like "pandas.DataFrame"')


def _find(value: Any) -> Converter | None:
    for cls in type(value).__mro__:
        found = _BY_TYPE.get(cls) or _BY_NAME.get((cls.__module__.split(".", 1)[0], cls.__name__))
        if found is not None:
            return found
    return None


def convert(value: Any) -> RichResult | None:
    """The rich form of `value`, or None when it has none (it is then sent as text or JSON).

    Raises:
        ToolDefinitionError: the converter returned something other than a `RichResult`.
    """
    if isinstance(value, RichResult):
        return value
    converter = _find(value)
    if converter is None:
        return None
    result = converter(value)
    if not isinstance(result, RichResult):
        raise ToolDefinitionError(
            f"the converter for {type(value).__name__} returned {type(result).__name__}, not a RichResult"
        )
    return result


def _figure(figure: Any) -> RichResult:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    title = ""
    axes = figure.get_axes()
    if axes and axes[0].get_title():
        title = f": {axes[0].get_title()}"
    return binary(buffer.getvalue(), "image/png", filename="figure.png", summary=f"A figure{title}")


def _pil_image(image: Any) -> RichResult:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    width, height = image.size
    return binary(buffer.getvalue(), "image/png", filename="image.png", summary=f"An image, {width}x{height}")


register_converter("pandas.DataFrame", table)
register_converter("pandas.Series", lambda series: table(series.to_frame()))
register_converter("matplotlib.Figure", _figure)
register_converter("PIL.Image", _pil_image)
