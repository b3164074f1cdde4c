"""`quizbot local-model`: the local Gemma server (llama.cpp) that needs no API key."""

from __future__ import annotations

from dataclasses import asdict

import click

from quizbot.cli.base import App, Group, cli, emit_json


@cli.group("local-model", cls=Group)
def local_model() -> None:
    """A local model with no API key: Gemma 3 270M served by llama.cpp (extra: quizbot[local])."""


@local_model.command("start")
@click.option("--port", type=click.IntRange(1, 65535), default=None, help="Port [default: free].")
@click.option("--json", "as_json", is_flag=True, help="Print the server as JSON.")
@click.pass_obj
def local_start(app: App, port: int | None, as_json: bool) -> None:
    """Assemble the model into the data directory (once) and start its server on 127.0.0.1."""
    from quizbot.providers.local import LOCAL_MODEL
    from quizbot.providers.local import start as local_start_server

    home = app.settings.ensure_home()
    click.echo("starting the local model server...", err=True)
    server = local_start_server(home, port=port)
    if as_json:
        emit_json({**asdict(server), "base_url": server.base_url, "model": f"local/{LOCAL_MODEL}"})
    else:
        click.echo(f"local/{LOCAL_MODEL} serving at {server.base_url} (pid {server.pid})")


@local_model.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@click.pass_obj
def local_status(app: App, as_json: bool) -> None:
    """Whether the local model server runs, and where."""
    from quizbot.providers.local import LOCAL_MODEL
    from quizbot.providers.local import status as local_server_status

    server = local_server_status(app.settings.home)
    if as_json:
        emit_json(
            {"running": server is not None, **({"base_url": server.base_url, "pid": server.pid}
                                               if server else {})}
        )  # fmt: skip
    elif server is None:
        click.echo("not running (start it with `quizbot local-model start`)")
    else:
        click.echo(f"local/{LOCAL_MODEL} serving at {server.base_url} (pid {server.pid})")


@local_model.command("stop")
@click.pass_obj
def local_stop(app: App) -> None:
    """Stop the local model server."""
    from quizbot.providers.local import stop as local_stop_server

    stopped = local_stop_server(app.settings.home)
    click.echo("stopped" if stopped else "not running")
