"""The one metrics definition: numpy reference vs scikit-learn and vs the numba twin."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labelvar import _kernels as K
from labelvar._kernels.metrics import _finish_replicate
from labelvar.metrics._scores import METRICS, confusion, score, scores

sklearn_metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn (test extra) not installed")


def _metrics_into(conf, theta_sum, res):
    """The engine's metrics of one confusion matrix ``conf[truth, pred]`` into ``res``."""
    _finish_replicate(conf.reshape((1, 1) + conf.shape), np.full(1, theta_sum),
                      res.reshape((1, 1, res.shape[0])))


@given(st.integers(2, 5), st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1,
                                   max_size=40), st.sampled_from([0.0, 1.0]))
@settings(max_examples=200, deadline=None)
def test_scores_equal_scikit_learn(n_labels, pairs, zero_division):
    truth = np.array([t % n_labels for t, _ in pairs])
    pred = np.array([p % n_labels for _, p in pairs])
    labels = list(range(n_labels))
    conf = confusion(truth, pred, n_labels)
    np.testing.assert_array_equal(conf, sklearn_metrics.confusion_matrix(truth, pred, labels=labels))
    kw = dict(labels=labels, zero_division=zero_division)
    macro = scores(conf, zero_division=zero_division)
    assert macro["accuracy"] == pytest.approx(sklearn_metrics.accuracy_score(truth, pred))
    assert macro["precision"] == pytest.approx(
        sklearn_metrics.precision_score(truth, pred, average="macro", **kw))
    assert macro["recall"] == pytest.approx(
        sklearn_metrics.recall_score(truth, pred, average="macro", **kw))
    assert macro["f1"] == pytest.approx(sklearn_metrics.f1_score(truth, pred, average="macro", **kw))
    pos = n_labels - 1
    one = scores(conf, pos_label=pos, zero_division=zero_division)
    assert one["f1"] == pytest.approx(
        sklearn_metrics.f1_score(truth, pred, labels=[pos], average="macro",
                                 zero_division=zero_division))
    assert one["precision"] == pytest.approx(
        sklearn_metrics.precision_score(truth, pred, labels=[pos], average="macro",
                                        zero_division=zero_division))


def test_numba_twin_equals_numpy_reference():
    """The kernels' _finish_replicate == scores(): pos_label=1 for L = 2, macro over all L for L > 2."""
    rng = np.random.default_rng(5)
    fields = list(K.FIELDS)
    for n_labels in (2, 3, 4, 7):
        for _ in range(300):
            conf = rng.integers(0, 4, size=(n_labels, n_labels)) * (rng.random((n_labels, n_labels)) < 0.6)
            res = np.zeros(K.N_FIELDS)
            _metrics_into(conf.astype(np.int64), 0.0, res)
            ref = scores(conf, pos_label=1 if n_labels == 2 else None)
            for m in METRICS:
                np.testing.assert_allclose(res[fields.index(m)], ref[m], rtol=1e-12, equal_nan=True)


def test_macro_f1_counts_absent_labels_like_scikit_learn():
    """The declared label set counts: a label absent from truth and predictions scores 0."""
    truth = [0, 0, 1, 1]
    pred = [0, 1, 1, 1]
    three = float(score("f1", truth, pred, 3))
    two = float(score("f1", truth, pred, 2))
    assert three == pytest.approx(two * 2 / 3)
    assert three == pytest.approx(sklearn_metrics.f1_score(truth, pred, labels=[0, 1, 2],
                                                           average="macro", zero_division=0))


def test_batched_confusion_and_empty():
    truth = np.array([[0, 1, 1], [1, 1, 1]])
    pred = np.array([[0, 1, 0], [1, 0, 1]])
    acc = score("accuracy", truth, pred, 2)
    np.testing.assert_allclose(acc, [2 / 3, 2 / 3])
    empty = scores(np.zeros((2, 2)))
    assert all(np.isnan(empty[m]) for m in METRICS)
    with pytest.raises(ValueError, match="label codes"):
        confusion([0, 2], [0, 1], 2)
    with pytest.raises(ValueError, match="metric must be one of"):
        score("auc", [0], [0], 2)


@pytest.mark.parametrize("truth,pred,n_labels", [
    ([2, 1, 1, 0, 0], [0, 0, 0, 0, 0], 4),  # label 3 nowhere, 1-3 never predicted
    ([0, 3], [0, 2], 4),
    ([0, 0, 0], [0, 0, 0], 3),  # one label only: the others are 0/0 everywhere
    ([1, 3, 3], [3, 1, 2], 4),
])
def test_zero_division_nan_leaves_undefined_labels_out_of_the_macro_average(truth, pred, n_labels):
    # scikit-learn's zero_division=np.nan: the 0/0 labels are excluded from the macro
    # average (the plain mean made every such average NaN)
    kw = dict(labels=list(range(n_labels)), average="macro", zero_division=np.nan)
    got = scores(confusion(truth, pred, n_labels), zero_division=np.nan)
    assert got["precision"] == pytest.approx(sklearn_metrics.precision_score(truth, pred, **kw))
    assert got["recall"] == pytest.approx(sklearn_metrics.recall_score(truth, pred, **kw))
    assert got["f1"] == pytest.approx(sklearn_metrics.f1_score(truth, pred, **kw))
    assert not np.isnan([got["precision"], got["recall"], got["f1"]]).any()


def test_zero_division_nan_macro_over_stacked_matrices():
    conf = np.zeros((2, 3, 3))
    conf[1, 0, 0] = 2  # the second matrix has one defined label
    got = scores(conf, zero_division=np.nan)
    assert np.isnan(got["f1"][0]) and got["f1"][1] == 1.0


def test_ordinal_scores_of_no_items_are_nan_without_warning():
    # (numpy's "Mean of empty slice" RuntimeWarning before)
    from labelvar.metrics._scores import ordinal_scores

    s = ordinal_scores([], [], [], [], 3)
    assert all(np.isnan(float(x)) for x in s.values())
    s = ordinal_scores([1, 3], [1.5, 1.0], [0, 0], [0, 2], 3)
    assert float(s["mae"]) == 1.25 and float(s["within1"]) == 0.5


def test_confusion_refuses_fractional_label_codes():
    # 0.5 was truncated to label 0 (scikit-learn would call it a label of its own)
    with pytest.raises(ValueError, match=r"truth must be a whole number, got \[0.5, 1. ?\]"):
        confusion([0.5, 1], [1, 1], 2)
    with pytest.raises(ValueError, match="pred must be a whole number"):
        confusion([0, 1], [1, 1.25], 2)
    assert confusion([0.0, 1.0], [1, 1], 2).tolist() == [[0, 1], [0, 1]]
    assert confusion([True, False], np.array([1, 0], dtype=np.int8), 2).tolist() == [[1, 0], [0, 1]]
