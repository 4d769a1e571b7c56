"""A one-shot command's heap: what torch, transformers and a loaded model allocate lives until the process exits,
so the cyclic garbage collector is told to stop walking it (`gc.freeze`).

Measured on the demo (2 cores): after `sentence_transformers` is imported the heap holds about 570k tracked
objects; each full collection walks all of them (8 full collections cost 0.95 s of a fresh demo) and the
interpreter's last collection at exit 1.2-1.4 s more. Only the `nycc-bench` console script (one command, then
exit) settles its heap: a library caller, a test or a server keeps Python's collector as it is, since an object
frozen while still garbage would never be freed there.
"""

from __future__ import annotations

import gc

_one_shot = False


def one_shot() -> None:
    """Mark this process as one command that exits when it is done (the `nycc-bench` console script)."""
    global _one_shot
    _one_shot = True


def is_one_shot() -> bool:
    """Whether this process settles its heap (`one_shot` was called)."""
    return _one_shot


def settle() -> None:
    """After a heavy load in a one-shot command: free what is garbage now, then leave every live object out of
    later collections (they live until exit). Elsewhere nothing."""
    if _one_shot:
        gc.collect()
        gc.freeze()


def before_exit() -> None:
    """At the end of a one-shot command: the interpreter's last collection skips the heap (nothing is left to free
    that exit does not free); elsewhere nothing."""
    if _one_shot:
        gc.freeze()
