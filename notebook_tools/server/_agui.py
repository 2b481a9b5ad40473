"""AG-UI endpoint (being written)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.routing import Route

if TYPE_CHECKING:
    from ._app import Server

__all__ = ["agui_routes"]


def agui_routes(server: Server) -> list[Route]:
    """The AG-UI routes."""
    return []
