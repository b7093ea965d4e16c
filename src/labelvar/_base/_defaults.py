"""Defaults shared by the Python functions and the command line, importable without numpy.

:data:`CONFIDENCE_LEVEL` is the one default coverage of every interval labelvar reports:
bootstrap intervals (``stratify``, agreement, rater skills, κx), exact central intervals
of finite-sample distributions (``DiscreteDistribution.interval``, ``labelvar expect``'s
F1 interval), ceilings and the Wilson interval of the planner. ``docs/glossary.md`` says
why 0.95.

>>> CONFIDENCE_LEVEL
0.95
"""

#: default coverage of every interval, in Python and on the command line
CONFIDENCE_LEVEL = 0.95
