"""The error every importer raises for input it refuses."""


class ImportRefused(Exception):
    """Input that cannot be imported; names the file and the line at fault."""

    status_code = 422

    def __init__(self, file: str, line: int, message: str) -> None:
        super().__init__(f"{file}:{line}: {message}")
        self.file = file
        self.line = line
        self.message = message
