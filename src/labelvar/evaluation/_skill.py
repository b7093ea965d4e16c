"""Each human's skill-based expectation per item (``StratifiedResult.expected_skill``).

E = p_d assumes an evaluated human is exchangeable with the panel's annotators. With
identified raters, a rater model (:func:`labelvar.fit_raters`) fitted to the
panel's and the humans' votes together gives each human's own skill; its
``predict_agreement`` is then, per item, P(the human's label = the panel's plurality
label | the panel's votes), exact under the model. Averaged over a stratum's items it
is the human's ``expected_skill`` beside E. Tied pluralities are averaged over the tied
labels (the random tie rule's expectation).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from labelvar.evaluation._tasks import _Task

#: rater models ``StratifiedResult.expected_skill`` accepts (:func:`labelvar.fit_raters`)
SKILL_MODELS = ("one_coin", "dawid_skene", "dawid_skene_difficulty")


def _long(codes: np.ndarray, names) -> pd.DataFrame:
    """Long votes (item = kept position, rater, label code) of items x raters codes."""
    parts = []
    for j, name in enumerate(names):
        ok = np.flatnonzero(codes[:, j] >= 0)
        parts.append(pd.DataFrame({"item": ok, "rater": str(name),
                                   "label": codes[ok, j].astype(np.int64)}))
    return pd.concat(parts, ignore_index=True)


def skill_expectations(t: _Task, model: str, seed) -> dict:
    """Per human of ``t``, P(its label = the panel's plurality) per kept item (NaN: none).

    The model is fitted to the panel's votes and the humans' labels together (each
    human one more identified rater), then each human is predicted from the panel's
    votes alone.
    """
    from labelvar.votes._raters import fit_raters

    humans = [h for h in t.humans if h in t.preds]
    if not humans:
        return {}
    panel = _long(t.codes, t.raters)
    own = _long(np.stack([t.preds[h] for h in humans], axis=1), humans)
    fit = fit_raters(pd.concat([panel, own], ignore_index=True), model=model,
                     labels=list(range(len(t.labels))), n_resamples=0, seed=seed)
    out = {}
    n = t.k.size
    for h in humans:
        pred = fit.predict_agreement(panel, rater=h, tie_rule="random").items
        arr = np.full(n, np.nan)
        arr[pred["item"].to_numpy(np.int64)] = pred["predicted"].to_numpy(float)
        out[h] = arr
    return out
