"""Run the quizbot web app: ``python app.py [--host HOST] [--port PORT]``.

The same as ``quizbot serve``; settings come from the environment (see the README).
"""

import sys

from quizbot.cli import main

if __name__ == "__main__":
    main(["serve", *sys.argv[1:]])
