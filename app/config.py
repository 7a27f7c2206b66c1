"""Settings, read once from the environment (prefix STUDYHALL_)."""

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    """Every setting of Studyhall; each one is documented in README.md."""

    model_config = SettingsConfigDict(env_prefix="STUDYHALL_", extra="ignore")

    database_url: str = Field(
        default=f"sqlite:///{PROJECT_ROOT / 'var' / 'studyhall.db'}",
        description="SQLAlchemy URL of the database.",
    )
    seed_dir: Path = Field(
        default=PROJECT_ROOT / "seed", description="Folder loaded by `studyhall seed`."
    )
    content_cache_seconds: float = Field(
        default=5.0,
        ge=0,
        description="How long a worker serves content from memory before reading it again.",
    )
    link_threshold: float = Field(
        default=0.12,
        gt=0,
        le=1,
        description="Lowest similarity score for a suggested question-to-note link.",
    )
    related_threshold: float = Field(
        default=0.30,
        gt=0,
        le=1,
        description="Lowest score of a suggested link learners see (as Related); authors see "
        "every suggestion. Measured by bench/related_links.py.",
    )
    max_upload_bytes: int = Field(
        default=2_000_000, gt=0, description="Largest file `studyhall import` accepts."
    )
    max_image_bytes: int = Field(
        default=1_048_576, gt=0, description="Largest image an imported document may carry."
    )
    log_level: str = Field(default="info", description="Log level of the server.")
    access_log: bool = Field(
        default=False,
        description="Log every request (the reverse proxy in front usually does this already).",
    )
    log_format: Literal["text", "json"] = Field(
        default="text", description="How the server writes its log: text lines or JSON objects."
    )
    metrics: Literal["off", "admin", "public"] = Field(
        default="admin", description="Who may read /metrics: nobody, admins, or anyone."
    )
    trusted_proxies: str = Field(
        default="127.0.0.1",
        description="Comma-separated addresses whose X-Forwarded-For is believed.",
    )
    signup_open: bool = Field(default=True, description="Whether anyone may create an account.")
    secure_cookies: bool = Field(
        default=False,
        description="Mark the session cookie Secure (and __Host-); turn on behind HTTPS.",
    )
    session_idle_minutes: int = Field(
        default=720, ge=5, description="Log out after this long without a visit."
    )
    session_max_days: int = Field(
        default=30, ge=1, description="Log out this long after logging in, whatever happens."
    )
    login_limit_per_account: int = Field(
        default=5,
        ge=1,
        description="Failed log-ins allowed per account and address in the window.",
    )
    login_limit_per_address: int = Field(
        default=20, ge=1, description="Failed log-ins and sign-ups allowed per client address."
    )
    rate_limit_window_minutes: int = Field(
        default=15, ge=1, description="The window the rate limits count in."
    )
    report_limit: int = Field(
        default=10, ge=1, description="Problem reports one account may send in the window."
    )
    exam_grace_seconds: int = Field(
        default=30,
        ge=0,
        le=600,
        description="How long after an exam's deadline answers are still accepted (network lag).",
    )
    exam_sweep_seconds: float = Field(
        default=60,
        ge=0,
        description="How often each worker finalises exams whose time ran out; 0 turns it off.",
    )
    exam_open_custom_limit: int = Field(
        default=3, ge=1, le=1000, description="Custom exams one learner may have open at once."
    )
    exam_daily_limit: int = Field(
        default=20, ge=1, le=10_000, description="Exams one learner may start in 24 hours."
    )
    exam_untimed_expiry_days: int = Field(
        default=30,
        ge=1,
        le=3650,
        description="Days an untimed exam stays open without a save before the sweep closes it.",
    )
    import_max_topics: int = Field(
        default=500, ge=1, description="Topics one imported document may declare."
    )
    import_max_exams: int = Field(
        default=200, ge=1, description="Exams one imported document may declare."
    )
    import_max_sets: int = Field(
        default=500, ge=1, description="Question sets one imported document may declare."
    )


@lru_cache
def get_settings() -> Settings:
    """Return the process-wide settings (tests clear this cache to override them)."""
    return Settings()
