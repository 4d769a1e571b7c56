"""`nycc-bench view`: the command line of the run viewer."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import NyccBenchError


def add_view_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register `view` on the CLI's subparsers."""
    p = subparsers.add_parser("view", help="a local page over run folders: scores, every instance, filters, search, "
                                           "two runs side by side")
    p.add_argument("run_dirs", nargs="+", metavar="RUN_DIR", help="run folders of `nycc-bench evaluate`")
    p.add_argument("--port", type=int, default=7576, help="the port on 127.0.0.1 (default 7576; 0: any free one)")
    p.add_argument("--html", metavar="FILE", default=None,
                   help="write the page to FILE (one self-contained file) instead of serving it")
    p.set_defaults(func=cmd_view)


def cmd_view(args: argparse.Namespace) -> int:
    """Serve the page (until Ctrl-C), or write it to a file."""
    from ..progress import working

    with working("view: loading the libraries"):  # the first line at once
        from .page import view_page
        from .runs import load_runs
        from .serve import serve_view

    if args.html:
        out = Path(args.html)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(view_page(load_runs(args.run_dirs)), encoding="utf-8")
        print(f"wrote {out}")
        return 0
    try:
        with working(f"view: reading {len(args.run_dirs)} run folder{'s' if len(args.run_dirs) != 1 else ''}"):
            server = serve_view(args.run_dirs, args.port, block=False)
    except OSError as err:
        raise NyccBenchError(f"port: cannot listen on 127.0.0.1:{args.port} ({err.strerror}); pass --port N "
                             "(0 picks a free one)") from None
    host, port = server.server_address[:2]
    print(f"nycc-bench view: http://{host}:{port}/  (Ctrl-C stops)", flush=True)
    try:
        import threading

        threading.Event().wait()
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
    finally:
        server.shutdown()
        server.server_close()
    return 0
