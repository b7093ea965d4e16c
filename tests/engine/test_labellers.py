"""The labeller extension point: a labeller defined here, nowhere else, simulated exactly.

The engine asks a labeller only for its ``matrix`` (and the ``Labeller`` attributes), never
for its class, so a new labeller needs no change to any other file.
"""

from dataclasses import dataclass

import numpy as np
import pytest

from labelvar.engine._items import Coin, Panel
from labelvar.engine._simulate import simulate
from labelvar.votes._models import Labeller


@dataclass(frozen=True)
class Lopsided(Labeller):
    """Right on a positive with probability ``hit``, on a negative with ``keep`` (L = 2)."""

    hit: float = 0.9
    keep: float = 0.6
    name: str = "lopsided"

    def matrix(self, n_labels, class_prior, theta):
        rows = np.array([[self.keep, 1.0 - self.keep], [1.0 - self.hit, self.hit]])
        return np.broadcast_to(rows, np.shape(theta) + (2, 2)).copy()


@dataclass(frozen=True)
class EchoExpert(Labeller):
    """One more annotator of the item (``annotator = True``), as the built-in expert."""

    name: str = "echo"
    annotator = True

    def matrix(self, n_labels, class_prior, theta):
        q = np.asarray(theta, dtype=float)[..., None, None]
        eye = np.eye(n_labels)
        return eye * q + (1.0 - eye) * (1.0 - q) / (n_labels - 1)


@pytest.mark.parametrize("method", ["collapsed", "explicit"])
def test_a_toy_labeller_scores_its_closed_form(method):
    """Coin model, round(m N) positives: accuracy = (n1 hit + n0 keep) / N, recall = hit."""
    n, m, toy = 200, 0.3, Lopsided()
    res = simulate(Coin(p_d=0.8, m=m), [toy, "expert"], n_items=n, replicates=4000, seed=3,
                   method=method)
    df = res.summary.set_index(["labeller", "metric"])
    n1 = 60  # round(0.3 x 200)
    acc = df.loc[("lopsided", "accuracy")]
    want = (n1 * toy.hit + (n - n1) * toy.keep) / n
    assert acc["expected"] == pytest.approx(want, abs=1e-12)
    assert abs(acc["mean"] - want) < 4 * acc["se"] and acc["se"] < 0.001
    rec = df.loc[("lopsided", "recall")]
    assert rec["expected"] == pytest.approx(toy.hit, abs=1e-12)
    assert abs(rec["mean"] - toy.hit) < 4 * rec["se"]
    assert (res.summary["method"] == method).all()


def test_a_toy_labeller_under_a_theta_prior_and_an_annotator_flag():
    """Per-item theta (explicit path): the toy's own matrix is used; an annotator-flagged
    toy is drawn exactly as the built-in expert (same numbers in the same slot)."""
    items = Panel(theta_prior="beta:3,1", panel_size=5, m=0.4)
    kw = dict(n_items=150, replicates=2000, seed=7)
    df = simulate(items, [Lopsided(), "random"], **kw).summary
    rows = df[df["expected"].notna() & (df["sd"] > 1e-9)]
    assert len(rows) >= 20 and (rows["z"].abs() < 4.5).all()
    echo = simulate(items, [EchoExpert()], **kw).summary
    expert = simulate(items, ["expert"], **kw).summary
    cols = ["stratum", "metric", "mean", "sd", "expected"]
    assert echo[cols].equals(expert[cols])


def test_anything_else_is_refused_naming_the_extension_point():
    class NotALabeller:
        name = "x"

        def matrix(self, n_labels, class_prior, theta):
            return np.eye(2)

    with pytest.raises(ValueError, match="subclasses of labelvar.votes.Labeller"):
        simulate(Coin(p_d=0.8), [NotALabeller()], n_items=10, replicates=5)
