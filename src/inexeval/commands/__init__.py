"""Sub-commands of the ``inexeval`` command line, one module each.

A module here defines ``NAME`` (the sub-command), ``HELP`` (one line), ``add_arguments(parser)``
and ``run(args) -> int``; :mod:`inexeval.cli` finds them all. Commands only parse, call the API
and print: no computation. A command of subcommands may also define
``add_chosen_arguments(parser, words)``, which :mod:`inexeval.cli` calls instead when the
command is the one run (``words``: the command line after its name), to build only the
subcommand those words name.
"""
