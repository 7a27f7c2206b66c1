FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    STUDYHALL_DATABASE_URL=sqlite:////app/var/studyhall.db

WORKDIR /app
RUN useradd --create-home --uid 10001 studyhall

# The app finds templates/, static/, migrations/ and seed/ beside its package, so it is
# installed in place (editable) rather than copied into site-packages.
COPY pyproject.toml README.md ./
COPY app ./app
COPY migrations ./migrations
COPY templates ./templates
COPY static ./static
COPY seed ./seed
RUN pip install --upgrade pip && pip install -e . \
    && mkdir -p /app/var && chown -R studyhall:studyhall /app/var

USER studyhall
VOLUME ["/app/var"]
EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4).status == 200 else 1)"

CMD ["sh", "-c", "studyhall migrate && studyhall seed --if-empty && studyhall serve --host 0.0.0.0 --port 8000"]
