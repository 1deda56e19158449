"""The error code generation raises when a tool in the chain refuses its input."""

from __future__ import annotations


class ToolchainError(RuntimeError):
    """A compilation step failed; ``stage`` names it and ``log`` holds the tool's own log."""

    def __init__(self, stage: str, message: str, log: str = "") -> None:
        self.stage = stage
        self.log = log
        text = f"{stage}: {message}"
        if log.strip():
            text += "\n" + log.strip()
        super().__init__(text)
