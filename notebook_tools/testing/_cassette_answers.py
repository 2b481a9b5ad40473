"""The person's answers in a cassette: kept while recording, looked up by prompt id while replaying."""

from __future__ import annotations

from typing import Any

from ._cassette_secrets import Secrets

__all__ = ["CassetteAnswers"]


class CassetteAnswers:
    """The answers part of `Cassette`."""

    answers: list[dict[str, Any]]
    recording: bool
    secrets: Secrets
    _new: bool

    def save(self) -> None:
        """Write the file (`Cassette.save`)."""
        raise NotImplementedError

    def changed(self) -> None:
        """Something new was recorded: written now (a crash later loses nothing)."""
        if self.recording:
            self._new = True
            self.save()

    def record_answer(self, tool_use_id: str, tool: str, answer: Any) -> None:
        """Keep a person's answer to a prompt (recording)."""
        if self.recording:
            self.answers.append(
                {"tool_use_id": tool_use_id, "tool": tool, "answer": self.secrets.clean(answer)}
            )
            self.changed()

    def drop_answer(self, tool_use_id: str) -> None:
        """Forget the last answer to `tool_use_id` (it was refused, and will be given again)."""
        for i in range(len(self.answers) - 1, -1, -1):
            if self.answers[i]["tool_use_id"] == tool_use_id:
                del self.answers[i]
                self.save()
                return

    def answer_for(self, tool_use_id: str) -> Any | None:
        """The recorded answer to the prompt of `tool_use_id` (replaying), or None."""
        for item in self.answers:
            if item["tool_use_id"] == tool_use_id:
                return item["answer"]
        return None
