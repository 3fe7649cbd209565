"""`python -m harness.localapi --port 8765 [--api openai-chat|openai-responses]`: the local Messages
API, or one of OpenAI's stand-ins, on its own, answering with an echo and keeping no request."""

import argparse
import signal
import threading

from harness.localapi.cache import WallClock
from harness.localapi.openai_api import OpenAILocalAPI, openai_echo
from harness.localapi.server import LocalAPI, echo


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m harness.localapi",
                                     description="A local Messages API that echoes; no key needed.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8787)
    parser.add_argument("--api", choices=("anthropic", "openai-chat", "openai-responses"), default="anthropic",
                        help="the wire: the Messages API, or OpenAI's Chat Completions or Responses stand-in")
    arguments = parser.parse_args(argv)
    if arguments.api == "anthropic":
        api = LocalAPI(host=arguments.host, port=arguments.port, clock=WallClock(), responder=echo, recording=False)
        said = "Local Messages API at {url} (ANTHROPIC_BASE_URL={url}); Ctrl-C stops."
    else:
        api = OpenAILocalAPI(arguments.api, host=arguments.host, port=arguments.port, clock=WallClock(),
                             responder=openai_echo, recording=False)
        said = "Local " + arguments.api + " stand-in at {url} (a [providers.NAME] base_url); Ctrl-C stops."
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda number, frame: stop.set())
    with api:
        print(said.format(url=api.base_url), flush=True)
        try:
            while not stop.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass


main()
