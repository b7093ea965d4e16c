"""May this judge replace my annotators? The alternative annotator test and its references.

This part answers the verdict question for an automatic judge (an LLM, a model) scored
against a panel of identified human annotators: the alternative annotator test (leave
one annotator out, does the judge agree with the others at least as often?), with what a
coin, an exchangeable annotator and the plurality follower would reach on the same
items, and the test's exact power. It may import evaluation and everything below it,
never the reader studies (``labelvar.readers``), planning, figures or the command line.
"""

from labelvar.judge._alt_test import AltTestResult, joint_winning_rates
from labelvar.judge._power import AltTestPower
from labelvar.judge._references import References

# labelvar.alt_test is a top-level name (its one public path)
__all__ = ["AltTestPower", "AltTestResult", "References", "joint_winning_rates"]
