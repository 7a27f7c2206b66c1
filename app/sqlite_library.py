"""SQLite's process-wide settings, chosen once before the first connection.

SQLite counts every allocation it makes for `sqlite3_memory_used()`, under one mutex shared
by the whole process. Where the library is built without its lookaside allocator (Debian's
is: `OMIT_LOOKASIDE`), every row, sort and full-text lookup allocates through that mutex, so
statements in different threads of a worker queue on it and run one at a time, slower than
in one thread alone. Studyhall does not read those counts, so it turns them off
(`SQLITE_CONFIG_MEMSTATUS`): reads in the thread pool then run on every core, and a single
one runs faster too.

The setting can only change while the library holds nothing (no connection, no statement),
so it is made before the first engine connects, and only when the library's own count of
memory in use says nothing is held. It is made once per process: once counting is off, that
count reads zero even with connections open.
"""

import ctypes
import sys
import threading

SQLITE_OK = 0
SQLITE_CONFIG_MEMSTATUS = 9

_lock = threading.Lock()
_done = False
_counting_off = False


def stop_counting_memory() -> bool:
    """Turn off SQLite's allocation counts, once per process; say whether they are off.

    Nothing changes (False) where the library cannot be reached through ctypes, where it
    holds memory already (a connection is open), or on a platform whose variadic calls
    ctypes cannot make.
    """
    global _done, _counting_off
    with _lock:
        if not _done:
            _done = True
            _counting_off = _reconfigure()
        return _counting_off


def _reconfigure() -> bool:
    library = _library()
    if library is None:
        return False
    if library.sqlite3_memory_used() != 0:
        return False  # something holds memory: shutting the library down would break it
    if library.sqlite3_shutdown() != SQLITE_OK:
        return False
    configured = library.sqlite3_config(SQLITE_CONFIG_MEMSTATUS, ctypes.c_int(0)) == SQLITE_OK
    # Connections initialise the library themselves; doing it here reports a failure early.
    return library.sqlite3_initialize() == SQLITE_OK and configured


def _library() -> ctypes.CDLL | None:
    """The SQLite library Python's sqlite3 module runs on, or None where it is out of reach."""
    # sqlite3_config takes variable arguments; on Linux (x86-64, arm64) those are passed as
    # fixed ones are, which is how ctypes calls it.
    if not sys.platform.startswith("linux"):
        return None
    try:
        import _sqlite3

        # The module's own handle finds the symbols in the library it is linked to (or built
        # into), never in a second copy of SQLite.
        library = ctypes.CDLL(_sqlite3.__file__)
        for name in (
            "sqlite3_memory_used",
            "sqlite3_shutdown",
            "sqlite3_config",
            "sqlite3_initialize",
        ):
            getattr(library, name)  # each raises AttributeError where it is not exported
    except (ImportError, AttributeError, OSError):
        return None
    library.sqlite3_memory_used.restype = ctypes.c_int64
    library.sqlite3_memory_used.argtypes = []
    return library


def memory_used() -> int | None:
    """SQLite's count of the memory it holds (0 while counting is off); None out of reach."""
    library = _library()
    return None if library is None else int(library.sqlite3_memory_used())
