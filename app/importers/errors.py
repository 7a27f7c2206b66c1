"""The error every importer raises for input it refuses."""

from app.errors import DomainError


class ImportRefused(DomainError):
    """Input that cannot be imported; names the file and the line at fault."""

    status_code = 422

    def __init__(self, file: str, line: int, message: str) -> None:
        super().__init__(message)
        self.file = file
        self.line = line

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"
