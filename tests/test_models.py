"""Labellers of labelvar.models (the theta priors are tested in test_priors.py)."""

import numpy as np
import pytest

from labelvar.models import Constant, Expert, Model, Prior, Random, as_labellers


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
])
def test_bad_input_names_the_field(make, field):
    with pytest.raises(ValueError, match=field):
        make()
