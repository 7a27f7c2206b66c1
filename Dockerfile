FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    STUDYHALL_DATABASE_URL=sqlite:////app/var/studyhall.db \
    PORT=8000

WORKDIR /app
RUN useradd --create-home --uid 10001 studyhall

# The same pinned, hashed set as `make run` installs, in a layer of its own.
COPY requirements/runtime.txt requirements/runtime.txt
RUN pip install --require-hashes --no-deps -r requirements/runtime.txt

# The app finds templates/, static/, migrations/ and seed/ beside its package, so it is
# installed in place (editable) rather than copied into site-packages.
COPY pyproject.toml README.md ./
COPY app ./app
COPY migrations ./migrations
COPY templates ./templates
COPY static ./static
COPY seed ./seed
RUN pip install --no-deps --no-build-isolation -e . \
    && mkdir -p /app/var && chown -R studyhall:studyhall /app/var

USER 10001
VOLUME ["/app/var"]
EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import os, sys, urllib.request; url = f'http://127.0.0.1:{os.environ[\"PORT\"]}/healthz'; sys.exit(0 if urllib.request.urlopen(url, timeout=4).status == 200 else 1)"]

# What `make run` runs, in the same order; PORT may be set at `docker run -e PORT=...`.
CMD ["sh", "-c", "studyhall migrate && studyhall seed --if-changed && exec studyhall serve --host 0.0.0.0 --port \"$PORT\""]
