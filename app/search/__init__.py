"""Full-text search over question stems, choices, explanations and note sections."""
