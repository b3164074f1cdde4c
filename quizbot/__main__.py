"""``python -m quizbot``: the same command line as the installed ``quizbot`` script."""

from quizbot.cli import main

if __name__ == "__main__":
    main()
