"""Practice for students: planning sessions, questions with feedback, summaries and progress.

Services only, no Gradio; :mod:`quizbot.practice.service` is the public facade.
"""
