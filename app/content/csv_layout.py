"""The spreadsheet layout questions are imported from and exported to, one question a row."""

LETTERS = "ABCDEFGH"  # as many choices as a row holds
CHOICES = tuple(f"choice_{letter.lower()}" for letter in LETTERS)
COLUMNS = (
    "id",
    "question",
    *CHOICES,
    "right",  # the right choices' letters: "B", or "A,C"
    "explanation",
    "topic",
    "reference_url",
    "reference_title",
)
