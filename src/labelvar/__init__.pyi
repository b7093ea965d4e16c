# The top-level names of labelvar: type checkers and IDEs read this stub, and
# labelvar/__init__.py loads the same names on first use (labelvar._base._lazy.attach_stub).
from labelvar import (
    analytic as analytic,
)
from labelvar import (
    cli as cli,
)
from labelvar import (
    design as design,
)
from labelvar import (
    engine as engine,
)
from labelvar import (
    evaluation as evaluation,
)
from labelvar import (
    io as io,
)
from labelvar import (
    judge as judge,
)
from labelvar import (
    metrics as metrics,
)
from labelvar import (
    plots as plots,
)
from labelvar import (
    readers as readers,
)
from labelvar import (
    report as report,
)
from labelvar import (
    sweep as sweep,
)
from labelvar import (
    votes as votes,
)
from labelvar.analytic._closed_forms import expected_accuracy as expected_accuracy
from labelvar.analytic._closed_forms import expected_f1 as expected_f1
from labelvar.analytic._closed_forms import expected_precision as expected_precision
from labelvar.analytic._closed_forms import expected_recall as expected_recall
from labelvar.design._planner import DesignResult as DesignResult
from labelvar.design._planner import plan_study as plan_study
from labelvar.engine._items import Coin as Coin
from labelvar.engine._items import Panel as Panel
from labelvar.engine._items import RaterPanel as RaterPanel
from labelvar.engine._result import SimulationResult as SimulationResult
from labelvar.engine._simulate import simulate as simulate
from labelvar.evaluation._agreement import CrossReplication as CrossReplication
from labelvar.evaluation._agreement import cross_replication as cross_replication
from labelvar.evaluation._inference import BinTestResult as BinTestResult
from labelvar.evaluation._inference import PairedTestResult as PairedTestResult
from labelvar.evaluation._inference import bin_tests as bin_tests
from labelvar.evaluation._inference import paired_test as paired_test
from labelvar.evaluation._stratified import StratifiedResult as StratifiedResult
from labelvar.evaluation._stratified import paper_table as paper_table
from labelvar.evaluation._stratified import stratify as stratify
from labelvar.judge._alt_test import alt_test as alt_test
from labelvar.readers._mrmc import mrmc as mrmc
from labelvar.readers._standalone import standalone_vs_readers as standalone_vs_readers
from labelvar.votes._ceilings import Ceilings as Ceilings
from labelvar.votes._ceilings import panel_ceilings as panel_ceilings
from labelvar.votes._models import Constant as Constant
from labelvar.votes._models import CorrelatedModel as CorrelatedModel
from labelvar.votes._models import Expert as Expert
from labelvar.votes._models import Model as Model
from labelvar.votes._models import ModelPair as ModelPair
from labelvar.votes._models import Prior as Prior
from labelvar.votes._models import Random as Random
from labelvar.votes._pilot import PilotFit as PilotFit
from labelvar.votes._pilot import fit_pilot as fit_pilot
from labelvar.votes._pilot import read_pilot as read_pilot
from labelvar.votes._priors import BetaPrior as BetaPrior
from labelvar.votes._priors import DirichletItems as DirichletItems
from labelvar.votes._priors import DirichletMixture as DirichletMixture
from labelvar.votes._priors import DiscretePrior as DiscretePrior
from labelvar.votes._priors import EmpiricalItems as EmpiricalItems
from labelvar.votes._priors import FixedTheta as FixedTheta
from labelvar.votes._raters import RaterFit as RaterFit
from labelvar.votes._raters import RaterModel as RaterModel
from labelvar.votes._raters import fit_raters as fit_raters

__version__: str
__all__: list[str]
