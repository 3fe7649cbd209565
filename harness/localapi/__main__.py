"""`python -m harness.localapi --port 8765`: the local Messages API, answering with an echo."""

from harness.localapi.server import main

main()
