"""Rich tool results: semantic kinds with views for the person and a compact form for the model.

    import notebook_tools as nt
    from notebook_tools import results

    @nt.tool
    def edit(path: str, text: str) -> results.RichResult:
        ...
        return results.diff(path, before, text)

A backend tool may return a `RichResult` (built here, or your own kind), or a value a converter
knows (a pandas DataFrame or Series, a matplotlib figure, a PIL image); `register_converter`
adds your types.

`WELL_KNOWN_KINDS` are the kinds every front end has a view for; a `Converter` is a function that
turns a value of your type into a `RichResult`.
"""

from ._builders import binary, diff, file_content, file_list, json_result, text
from ._convert import Converter, convert, register_converter, unregister_converter
from ._kept import KeptResult, KeptResults
from ._kinds import WELL_KNOWN_KINDS, Binary, DisplayHints, RichResult, is_valid_kind, is_well_known
from ._model_content import model_content, model_text
from ._presented import Presented
from ._tables import page_of, table

__all__ = [
    "WELL_KNOWN_KINDS",
    "Binary",
    "Converter",
    "DisplayHints",
    "KeptResult",
    "KeptResults",
    "Presented",
    "RichResult",
    "binary",
    "convert",
    "diff",
    "file_content",
    "file_list",
    "is_valid_kind",
    "is_well_known",
    "json_result",
    "model_content",
    "model_text",
    "page_of",
    "register_converter",
    "table",
    "text",
    "unregister_converter",
]
