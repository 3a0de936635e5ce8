"""gpurec.torch: the nn.Module, its autograd gradient, the bound helpers and a torch.optim fit."""
import json
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from gpurec.torch import GeneReconModel, SolverOptions, clamp_log_rate_, project_rate_gradient_  # noqa: E402

from conftest import run_cli  # noqa: E402

MIN_RATE, MAX_RATE = 1e-10, 2.0


def test_backward_fills_theta_grad_with_the_engine_gradient(simulated2):
    model = GeneReconModel(species_tree=simulated2["species"], gene_trees=None, families=simulated2["families"],
                           mode="specieswise", device="cpu", rates=(0.05, 0.2, 0.02))
    assert isinstance(model, torch.nn.Module) and model.theta.shape == (37, 3)
    assert [p for p in model.parameters()] == [model.theta]
    loss = model()
    assert loss.dim() == 0 and loss.dtype == torch.float64
    loss.backward()
    nll, grad = model.last_evaluation["nll_bits"], model.last_evaluation["gradient"]
    assert loss.item() == nll
    assert np.array_equal(model.theta.grad.numpy(), grad)
    (2 * model()).backward()  # the chain rule: gradients accumulate, scaled
    assert np.allclose(model.theta.grad.numpy(), 3 * grad, rtol=1e-12)


def test_bound_helpers_project_and_clamp_in_place():
    low, high = math.log2(MIN_RATE), math.log2(MAX_RATE)
    theta = torch.tensor([low, high, -3.0, low - 1.0, high + 1.0, 0.0], dtype=torch.float64, requires_grad=True)
    theta.grad = torch.tensor([1.0, -1.0, 1.0, 1.0, -1.0, -1.0], dtype=torch.float64)
    project_rate_gradient_(theta, MIN_RATE, MAX_RATE)
    # Descent goes along -grad: +grad at the lower bound and -grad at the upper would cross them.
    assert theta.grad.tolist() == [0.0, 0.0, 1.0, 0.0, 0.0, -1.0]
    clamp_log_rate_(theta, MIN_RATE, MAX_RATE)
    clamped = theta.detach().tolist()
    # The engine's bounds are log2 of the rates moved inward by ulps, so that 2^θ stays inside them.
    assert clamped[0] == clamped[3] == pytest.approx(low, rel=1e-15) and 2.0 ** clamped[0] >= MIN_RATE
    assert clamped[1] == clamped[4] == pytest.approx(high, rel=1e-15) and 2.0 ** clamped[1] <= MAX_RATE
    assert clamped[2] == -3.0 and clamped[5] == 0.0
    assert theta.requires_grad


def test_adam_with_the_bound_helpers_reaches_the_optimum_of_gpurec_optimize(simulated2, tmp_path):
    run_cli("optimize", "-s", simulated2["species"], "-f", simulated2["families"], "--device", "cpu", "-p", tmp_path)
    cli = json.loads((tmp_path / "result.json").read_text())["optimization"]
    model = GeneReconModel(species_tree=simulated2["species"], families=simulated2["families"], mode="global",
                           device="cpu", solver_options=SolverOptions(e_max_iter=2000, e_tol=1e-15))
    optimiser = torch.optim.Adam(model.parameters(), lr=0.3)
    schedule = torch.optim.lr_scheduler.ExponentialLR(optimiser, gamma=0.99)
    for _ in range(800):
        optimiser.zero_grad()
        loss = model()
        loss.backward()
        project_rate_gradient_(model.theta, MIN_RATE, MAX_RATE)
        optimiser.step()
        clamp_log_rate_(model.theta, MIN_RATE, MAX_RATE)
        schedule.step()
    rates = np.exp2(model.theta.detach().numpy())
    expected = [cli["rates"][k] for k in "DLT"]
    assert rates == pytest.approx(expected, rel=1e-3)
    assert model().item() == pytest.approx(cli["best_nll_bits"], abs=1e-6)


def test_solver_knobs_changed_between_steps_take_effect(trees2):
    model = GeneReconModel(species_tree=trees2["species"], gene_trees=[trees2["gene"]], device="cpu")
    converged = model().item()
    model.solver_options.e_tol = 1e-10
    model.configure_solver(schedule="alerax")
    alerax = model().item()
    point = trees2["reference"]["points"][0]["loglik_nats"]
    assert alerax == pytest.approx(-point["alerax_v1.4"]["my_family"] / math.log(2), rel=1e-12)
    assert converged == pytest.approx(-point["converged"]["my_family"] / math.log(2), rel=1e-10)
    assert model.family_log_likelihoods[0] == pytest.approx(point["alerax_v1.4"]["my_family"], rel=1e-12)


def test_sampling_from_the_module_uses_its_theta(trees2):
    model = GeneReconModel(species_tree=trees2["species"], gene_trees=[trees2["gene"]], device="cpu")
    with torch.no_grad():
        model.theta.fill_(math.log2(0.05))
    drawn = model.sample_reconciliations(samples=2, seed=1)
    model()
    assert drawn[0]["log_likelihood"] == pytest.approx(model.family_log_likelihoods[0], rel=1e-12)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device visible to torch")
def test_cuda_tensors_are_copied(trees2):
    model = GeneReconModel(species_tree=trees2["species"], gene_trees=[trees2["gene"]], device="cpu",
                           tensor_device="cuda")
    loss = model()
    loss.backward()
    assert model.theta.grad.device.type == "cuda"
    project_rate_gradient_(model.theta, MIN_RATE, MAX_RATE)
    clamp_log_rate_(model.theta, MIN_RATE, MAX_RATE)
