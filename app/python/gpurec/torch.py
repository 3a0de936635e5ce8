"""gpurec.torch: GeneReconModel as a torch.nn.Module, the original gpurec PyTorch API.

forward() returns the NLL in bits as a 0-d tensor whose backward is the engine's analytic gradient,
so any torch.optim optimiser can fit θ. CUDA tensors are copied to the host and back.
"""
import numpy as np
import torch

from . import _engine
from ._engine import InputError, SolverOptions
from .engine_state import EngineState
from .sampling import sample_reconciliations as _sample

__all__ = ["GeneReconModel", "InputError", "SolverOptions", "clamp_log_rate_", "project_rate_gradient_",
           "sample_reconciliations"]


def _host(tensor):
    return np.ascontiguousarray(tensor.detach().to("cpu", torch.float64).numpy())


class _Nll(torch.autograd.Function):
    """NLL in bits of θ and extra; the gradient comes from the engine, computed in the forward pass."""

    @staticmethod
    def forward(ctx, theta, extra, module):
        result = module._state.evaluate(_host(theta), _host(extra), theta.requires_grad or extra.requires_grad)
        module.last_evaluation = result
        if result["gradient"] is not None:
            ctx.gradient = torch.as_tensor(result["gradient"], dtype=theta.dtype, device=theta.device)
            ctx.gradient_extra = torch.as_tensor(result["gradient_extra"], dtype=extra.dtype, device=extra.device)
        return torch.tensor(result["nll_bits"], dtype=theta.dtype, device=theta.device)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.gradient, grad_output * ctx.gradient_extra, None


class GeneReconModel(torch.nn.Module):
    """θ (log2 rates, an nn.Parameter: [3] global, [S, 3] specieswise, [F, 3] genewise) and its engine.

    extra (an nn.Parameter when the model has any; names in extra_names) holds the engine's entries
    after the rate rows: origination weights, highway rates, the speciation shape α.

    device picks the engine's backend as the CLI's --device does ("auto", "cpu", "cuda", "cuda:N");
    θ lives on the matching torch device when torch sees it, else on the CPU (tensor_device overrides).
    """

    def __init__(self, species_tree, gene_trees=None, mode="global", device="auto", solver_options=None,
                 tensor_device=None, **kwargs):
        super().__init__()
        self._state = EngineState(species_tree, gene_trees, mode=mode, device=device,
                                  solver_options=solver_options, **kwargs)
        if tensor_device is None:
            wants_cuda = str(device).startswith("cuda") and torch.cuda.is_available()
            tensor_device = str(device) if wants_cuda else "cpu"
        initial = torch.as_tensor(self._state.engine.initial_theta(), dtype=torch.float64)
        self.theta = torch.nn.Parameter(initial.to(tensor_device))
        extra = torch.as_tensor(self._state.engine.initial_extra(), dtype=torch.float64).to(tensor_device)
        # Without extra entries, parameters() stays [theta] as in the original API.
        self.extra = torch.nn.Parameter(extra) if extra.numel() else extra
        self.last_evaluation = None

    def forward(self):
        return _Nll.apply(self.theta, self.extra, self)

    @property
    def solver_options(self):
        return self._state.solver_options

    @solver_options.setter
    def solver_options(self, options):
        self._state.solver_options = options

    def configure_solver(self, options=None, **knobs):
        self._state.configure_solver(options, **knobs)

    def replan_batches(self, memory_bytes=0, max_families_per_batch=0):
        self._state.replan_batches(memory_bytes, max_families_per_batch)

    def clear_warm_starts(self):
        self._state.clear_warm_starts()

    @property
    def engine(self):
        return self._state.engine

    @property
    def family_names(self):
        return self._state.engine.family_names

    @property
    def species_names(self):
        return self._state.engine.species_names

    @property
    def extra_names(self):
        return self._state.engine.extra_names

    @property
    def family_log_likelihoods(self):
        """Per-family natural-log likelihoods of the last forward (a NumPy array; None before one)."""
        return None if self.last_evaluation is None else self.last_evaluation["family_log_likelihoods"]

    def theta_array(self):
        return _host(self.theta)

    def extra_array(self):
        return _host(self.extra)

    def sample_reconciliations(self, samples=100, seed=123, families=None, min_rate=1e-10, max_rate=2.0):
        return _sample(self, samples, seed, families, min_rate, max_rate)


def sample_reconciliations(model, samples=100, seed=123, families=None, min_rate=1e-10, max_rate=2.0):
    return _sample(model, samples, seed, families, min_rate, max_rate)


def _in_place(tensor, update):
    """Runs update on a float64 host array of tensor and writes the result back (a view on the CPU)."""
    with torch.no_grad():
        if tensor.device.type == "cpu" and tensor.dtype == torch.float64 and tensor.is_contiguous():
            update(tensor.numpy())
        else:
            host = _host(tensor)
            update(host)
            tensor.copy_(torch.as_tensor(host))


def project_rate_gradient_(theta, min_rate, max_rate):
    """Zeroes, in place, the components of theta.grad that would push a log2 rate past its bound."""
    if theta.grad is None:
        return theta
    values = _host(theta)
    _in_place(theta.grad, lambda grad: _engine.project_rate_gradient(values, grad, min_rate, max_rate))
    return theta


def clamp_log_rate_(theta, min_rate, max_rate):
    """Clamps θ (log2 rates), in place, into [log2 min_rate, log2 max_rate]."""
    _in_place(theta.data, lambda values: _engine.clamp_log_rate(values, min_rate, max_rate))
    return theta
