"""Studyhall: a self-hosted study platform for certification exam prep."""

__version__ = "0.1.0"
