"""Settings: read from STUDYHALL_* variables, each one documented in the README."""

from app.config import PROJECT_ROOT, Settings, get_settings


def test_every_setting_is_documented_in_the_readme():
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    for name in Settings.model_fields:
        assert f"`STUDYHALL_{name.upper()}`" in readme, name


def test_settings_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("STUDYHALL_DATABASE_URL", "sqlite:////tmp/elsewhere.db")
    monkeypatch.setenv("STUDYHALL_CONTENT_CACHE_SECONDS", "0")
    get_settings.cache_clear()
    try:
        settings = get_settings()
        assert settings.database_url == "sqlite:////tmp/elsewhere.db"
        assert settings.content_cache_seconds == 0
    finally:
        get_settings.cache_clear()


def test_the_default_database_is_a_file_under_var(monkeypatch):
    monkeypatch.delenv("STUDYHALL_DATABASE_URL", raising=False)
    assert Settings().database_url == f"sqlite:///{PROJECT_ROOT / 'var' / 'studyhall.db'}"


def test_the_readme_limits_table_gives_the_limits_in_force():
    from app.accounts.service import TOKEN_LIFETIMES
    from app.importers import catalog
    from app.web.limits import API_BODY_BYTES

    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    limits = readme[readme.index("## Limits") :].split("\n## ")[0]
    assert f"({Settings().max_upload_bytes:,} bytes)" in limits
    assert f"| {API_BODY_BYTES:,} bytes |" in limits
    assert f"{catalog.MAX_CHARS:,} characters, lines of {catalog.MAX_LINE:,}" in limits
    assert f"keys of at most {catalog.MAX_KEY_PARTS - 1} dots" in limits
    days = sorted(TOKEN_LIFETIMES)
    assert f"{days[0]}, {days[1]} (default) or {days[2]} days" in limits
