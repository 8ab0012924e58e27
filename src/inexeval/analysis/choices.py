"""Names of the significance tests and multiple-testing corrections, without importing numpy
(the command line lists them in its help)."""

PAIRED_TESTS = ("t", "wilcoxon", "sign", "randomised", "bootstrap")
ALL_PAIRS_TESTS = ("tukey", "randomised-tukey")
TESTS = PAIRED_TESTS + ALL_PAIRS_TESTS
WILCOXON_RULES = ("scipy", "r")
"""How the Wilcoxon test finds its p-value: scipy.stats.wilcoxon's default, R's wilcox.test's."""
CORRECTIONS = ("none", "bonferroni", "holm", "holm-sidak", "fdr_bh", "fdr_by")
PERMUTATIONS = 10_000
"""The randomised and bootstrap tests' permutations (B) when none are given."""
