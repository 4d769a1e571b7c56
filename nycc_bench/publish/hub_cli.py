"""`nycc-bench hub serve`: the rehearsal Hub (`local_hub.LocalHub`, imported only when it serves, so the CLI
starts fast)."""

from __future__ import annotations

import argparse


def add_hub_parser(subparsers: argparse._SubParsersAction) -> None:
    """`nycc-bench hub serve`: the rehearsal Hub."""
    hub = subparsers.add_parser("hub", help="a local stand-in for the Hugging Face Hub, to rehearse a push")
    verbs = hub.add_subparsers(dest="hub_command", required=True)
    serve = verbs.add_parser("serve", help="serve a local Hub on 127.0.0.1 until Ctrl-C; push to it with "
                                           "--endpoint URL and HF_TOKEN set to --token")
    serve.add_argument("--token", required=True, help="the token clients must send (a rehearsal token, not yours)")
    serve.add_argument("--port", type=int, default=0, help="the port (default 0: a free one, printed)")
    serve.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve a local Hub until interrupted, printing its URL first."""
    import contextlib
    import threading

    from .local_hub import LocalHub

    with LocalHub(args.token, port=args.port) as hub:
        print(f"local Hub at {hub.base_url} (Ctrl-C stops it)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()
    return 0
