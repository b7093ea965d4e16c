"""Labellers of labelvar.votes._models (the theta priors are tested in test_priors.py)."""

import numpy as np
import pytest

from labelvar.votes._models import (
    Constant,
    Expert,
    Model,
    ModelPair,
    Prior,
    Random,
    as_labellers,
    correlation_bounds,
    labeller_columns,
)


@pytest.mark.parametrize("lab", [Expert(), Random(), Prior(), Constant(), Model(),
                                 Model(accuracy=0.3, name="A")])
@pytest.mark.parametrize("n_labels", [2, 3, 5])
def test_matrices_are_row_stochastic(lab, n_labels):
    prior = np.arange(1, n_labels + 1) / np.arange(1, n_labels + 1).sum()
    mat = lab.matrix(n_labels, prior, np.array([0.5, 0.9]))
    assert mat.shape == (2, n_labels, n_labels)
    assert np.allclose(mat.sum(axis=-1), 1.0)
    assert (mat >= 0).all()


def test_labeller_semantics():
    e = Expert().matrix(3, [1 / 3] * 3, 0.7)
    assert e[0].tolist() == pytest.approx([0.7, 0.15, 0.15])
    assert Prior().matrix(3, [0.2, 0.3, 0.5], 0.7)[2].tolist() == [0.2, 0.3, 0.5]
    ss = Model(sensitivity=0.9, specificity=0.6).matrix(2, [0.5, 0.5], 0.7)
    assert ss[1, 1] == pytest.approx(0.9) and ss[0, 0] == pytest.approx(0.6)
    assert Model().accuracy == 0.8


@pytest.mark.parametrize("make,field", [
    (lambda: Model(accuracy=1.2), "Model.accuracy"),
    (lambda: Model(sensitivity=0.9), "sensitivity and specificity"),
    (lambda: Model(accuracy=0.5, sensitivity=0.9, specificity=0.9), "not both"),
    (lambda: Constant(label=-1), "Constant.label"),
    (lambda: Expert(name=""), "name"),
    (lambda: as_labellers(("expert", "oracle")), "labellers"),
    (lambda: as_labellers(("expert", Expert())), "unique"),
    (lambda: Constant(label=2).matrix(2, [0.5, 0.5], 0.5), "Constant.label"),
    (lambda: Model(sensitivity=0.9, specificity=0.9).matrix(3, [1 / 3] * 3, 0.5), "n_labels"),
    (lambda: ModelPair(1.1, 0.7), "ModelPair.accuracy_a"),
    (lambda: ModelPair(0.8, 0.7, names=("A", "A")), "ModelPair.names"),
    (lambda: ModelPair(0.8, 0.7, names=("A",)), "ModelPair.names"),
    (lambda: ModelPair(0.8, 0.7, error_correlation=0.8),
     r"error_correlation must be in \[-0.3273, 0.7638\]"),
    (lambda: ModelPair(0.8, 0.7, error_correlation=-0.4), "Frechet bounds"),
    # arrays, non-iterables and huge reprs: one ValueError line naming the field
    (lambda: ModelPair(0.8, 0.7, error_correlation=[0.1, 0.2]),
     r"ModelPair.error_correlation must be a single number, got \[0.1, 0.2\] \(shape \(2,\)\)"),
    (lambda: ModelPair(0.8, 0.7, names=None), "ModelPair.names must be two different names"),
    (lambda: ModelPair(0.8, 0.7, names=3), "ModelPair.names must be two different names"),
    (lambda: Model(accuracy=np.array([0.7])), r"Model.accuracy must be a single number"),
    (lambda: Constant(label=[]), "Constant.label must be a single number"),
    (lambda: Constant(label=[1, 2]), "Constant.label must be a single number"),
    (lambda: correlation_bounds(None, 0.5), "accuracy_a must be a number"),
    (lambda: correlation_bounds(0.8, [0.5, 0.6]), "accuracy_b must be a single number"),
    (lambda: correlation_bounds(1.2, 0.5), r"accuracy_a must be in \[0, 1\]"),
    (lambda: as_labellers(np.array(0.7)), "labellers must be strings or labeller objects"),
    (lambda: Expert(name=10**400), r"labeller name must be a non-empty string, got 1000.{60,80}$"),
])
def test_bad_input_names_the_field(make, field):
    with pytest.raises(ValueError, match=field):
        make()


@pytest.mark.parametrize("qa,qb", [(0.8, 0.7), (0.95, 0.3), (0.5, 0.5), (1.0, 0.6)])
@pytest.mark.parametrize("n_labels", [2, 4])
def test_model_pair_joint_matrix(qa, qb, n_labels):
    lo, hi = correlation_bounds(qa, qb)
    for rho in (lo, 0.0, hi, (lo + hi) / 3):
        pair = ModelPair(qa, qb, error_correlation=rho)
        joint = pair.joint_matrix(n_labels)  # [c, a, b]
        assert (joint >= 0).all() and np.allclose(joint.sum(axis=(1, 2)), 1.0)
        # margins are the members' Model matrices
        for j, member in enumerate(pair.members):
            margin = joint.sum(axis=2 - j)
            assert np.allclose(margin, member.matrix(n_labels, [1 / n_labels] * n_labels, 0.5))
        # P(both right) and the phi coefficient of the two correctness indicators
        both = joint[0, 0, 0]
        assert both == pytest.approx(pair.p_both_correct)
        s = np.sqrt(qa * (1 - qa) * qb * (1 - qb))
        if s > 0:
            assert (both - qa * qb) / s == pytest.approx(rho, abs=1e-12)
        # wrong answers: uniform over the other labels, independently of each other
        if n_labels > 2:
            assert np.allclose(joint[0, 1:, 1:], joint[0, 1, 1])


def test_correlation_bounds_are_the_frechet_bounds():
    qa, qb = 0.8, 0.7
    lo, hi = correlation_bounds(qa, qb)
    s = np.sqrt(qa * (1 - qa) * qb * (1 - qb))
    assert qa * qb + lo * s == pytest.approx(qa + qb - 1)  # p11 at its floor
    assert qa * qb + hi * s == pytest.approx(min(qa, qb))  # p11 at its ceiling
    assert correlation_bounds(1.0, 0.4) == (0.0, 0.0)


def test_pair_expands_into_two_columns():
    cols, pairs = labeller_columns(as_labellers(["expert", ModelPair(0.8, 0.7), "random"]))
    assert [c.name for c in cols] == ["expert", "A", "B", "random"]
    assert [(a, b) for a, b, _ in pairs] == [(1, 2)]
    assert cols[1] == Model(accuracy=0.8, name="A")


def test_constant_label_given_as_a_whole_float():
    # Constant(label=1.0) kept the float and its matrix raised numpy's IndexError
    lab = Constant(label=1.0, name="c")
    assert lab.label == 1 and isinstance(lab.label, int)
    assert lab.matrix(2, [0.5, 0.5], 0.5).tolist() == [[0.0, 1.0], [0.0, 1.0]]
    assert Constant(label=np.int64(0)).matrix(3, [1 / 3] * 3, 0.5)[2].tolist() == [1.0, 0.0, 0.0]
