"""`jobsearch run` and `jobsearch replay`: the whole pipeline from one command (see command.py)."""

from jobsearch.run.command import add_run_commands, cmd_replay, cmd_run

__all__ = ["add_run_commands", "cmd_replay", "cmd_run"]
