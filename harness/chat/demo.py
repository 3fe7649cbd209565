"""`ever chat --local`: the chat with no key, on the local Messages API, which echoes.

The one place the product imports harness.localapi. The demo's chat lives in its own home,
`$EVER_HOME/demo`, so nothing it logs reaches the user's own chat.
"""

import dataclasses

import click

from harness.chat.config import Settings
from harness.localapi.server import LocalAPI, WallClock, echo

DEMO_KEY = "local-demo"  # the local API asks for a key and stores none


async def run_demo(settings: Settings, yes: bool = False) -> None:
    from harness.chat.attached import chat_until_left

    home = settings.home / "demo"
    with LocalAPI(clock=WallClock(), responder=echo) as api:
        click.echo(f"Demo: no model and no key. The local Messages API at {api.base_url} echoes each "
                   f"message; this chat is kept apart, in {home}.")
        demo = dataclasses.replace(settings, home=home, base_url=api.base_url, priced=False)
        await chat_until_left(demo, yes=yes, api_key=DEMO_KEY)
