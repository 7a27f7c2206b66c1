"""Timed practice exams: attempts drawn from blueprints, a server-side clock, results and review."""
