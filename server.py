"""The FastMCP gateway's entry point: `python server.py [--http]` serves every declared tool (haygate.gateway)."""

import sys

from haygate.cli import main

if __name__ == "__main__":
    sys.exit(main(["serve", *sys.argv[1:]]))
