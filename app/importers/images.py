"""Images carried inside an imported document (base64), checked before they are stored.

Only PNG, JPEG, GIF and WebP are taken, recognised by their first bytes whatever their name
says: an SVG can hold script, and a browser guessing a type is what `nosniff` stops.
"""

import base64
import binascii
import hashlib
import re
from urllib.parse import quote

from app.content.bundle import MediaData
from app.importers.errors import ImportRefused

_SPACE = re.compile(r"\s+")
TYPES = "PNG, JPEG, GIF or WebP"


def image_type(data: bytes) -> str | None:
    """The content type of an image Studyhall shows, from its first bytes (None: another)."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def read_image(encoded: str, name: str, file: str, line: int, limit: int) -> MediaData:
    """Decode a base64 image named name, or refuse it (bad base64, too large, another type)."""
    text = _SPACE.sub("", encoded)
    if len(text) // 4 * 3 > limit + 2:  # refused before it is decoded
        raise _too_large(name, file, line, limit)
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ImportRefused(file, line, f"the image {name!r} is not valid base64") from None
    if len(data) > limit:
        raise _too_large(name, file, line, limit)
    content_type = image_type(data)
    if content_type is None:
        raise ImportRefused(
            file,
            line,
            f"the image {name!r} is not a {TYPES} image (other types, SVG among them, "
            "are not taken)",
        )
    return MediaData(hashlib.sha256(data).hexdigest(), name, content_type, data, line)


def _too_large(name: str, file: str, line: int, limit: int) -> ImportRefused:
    return ImportRefused(
        file,
        line,
        f"the image {name!r} is larger than the limit of {limit:,} bytes "
        "(STUDYHALL_MAX_IMAGE_BYTES)",
    )


def media_url(image: MediaData) -> str:
    """Where the media store serves an image."""
    return f"/media/{image.sha256}/{quote(image.name, safe='')}"
