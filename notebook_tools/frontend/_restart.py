"""What a front-end session does after a restart: wait again for the open prompts, or rerun running calls."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING

from ..prompts._turn_task import done
from ..session._state import PendingFrontendTool, RunResult
from ..tools._approvals import PendingApproval

if TYPE_CHECKING:
    from ..agent._agent import Agent

__all__ = ["AfterRestart"]


class AfterRestart:
    """A part of `FrontendSession`: its methods for a session loaded after a restart."""

    if TYPE_CHECKING:  # FrontendSession's

        @property
        def agent(self) -> Agent: ...

        def start(self, first: Awaitable[RunResult]) -> asyncio.Task[RunResult]: ...

        def _open_pause(
            self, frontend: list[PendingFrontendTool], approvals: list[PendingApproval]
        ) -> None: ...

    async def paused(self) -> RunResult:
        """The current pause as a turn's first step, to wait for its answers again."""
        return self.agent.paused_result()

    def carry_on(self) -> asyncio.Task[RunResult] | None:
        """After a restart: wait for the open prompts (timeouts starting now), or rerun running calls."""
        status = self.agent.state.status
        if status == "idle":
            return None
        if status == "running":
            return self.start(self.agent.continue_turn())
        now = time.time()
        result = self.agent.paused_result()
        frontend = [p.model_copy(update={"requested_at": now}) for p in result.pending_frontend_tools]
        approvals = [p.model_copy(update={"requested_at": now}) for p in result.pending_approvals]
        self._open_pause(frontend, approvals)
        fresh = result.model_copy(update={"pending_frontend_tools": frontend, "pending_approvals": approvals})
        return self.start(done(fresh))
