"""Sub-commands of the ``inexeval`` command line, one module each.

A module here defines ``NAME`` (the sub-command), ``HELP`` (one line), ``add_arguments(parser)``
and ``run(args) -> int``; :mod:`inexeval.cli` finds them all. Commands only parse, call the API
and print: no computation.
"""
