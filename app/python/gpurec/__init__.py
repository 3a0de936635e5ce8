"""gpurec: gene-tree / species-tree reconciliation under the undated DTL model.

The engine is the C++ library of the gpurec CLI (gpurec._engine); this package only moves
arrays in and out of it. gpurec.torch adds the torch.nn.Module front end when torch is installed.
"""
from ._engine import InputError, SolverOptions, clamp_log_rate, project_rate_gradient
from .model import GeneReconModel
from .sampling import sample_reconciliations

__all__ = [
    "GeneReconModel",
    "InputError",
    "SolverOptions",
    "clamp_log_rate",
    "project_rate_gradient",
    "sample_reconciliations",
]
