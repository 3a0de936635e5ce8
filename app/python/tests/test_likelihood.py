"""NLL, per-family log-likelihoods and gradients against reference.json, `gpurec eval` and finite differences."""
import json
import math

import numpy as np
import pytest

import gpurec
from conftest import run_cli

LN2 = math.log(2.0)


def model_at(inputs, rates, **kwargs):
    return gpurec.GeneReconModel(species_tree=inputs["species"], gene_trees=[inputs["gene"]], rates=rates,
                                 device="cpu", **kwargs)


def test_nll_matches_the_converged_reference_points(trees2):
    for point in trees2["reference"]["points"]:
        r = point["rates"]
        model = model_at(trees2, (r["D"], r["L"], r["T"]))
        expected_ll = point["loglik_nats"]["converged"]["my_family"]
        nll = model()
        assert nll == pytest.approx(-expected_ll / LN2, rel=1e-10)
        assert model.family_log_likelihoods.shape == (1,)
        assert model.family_log_likelihoods[0] == pytest.approx(expected_ll, rel=1e-10)


def test_alerax_schedule_matches_alerax(trees2):
    point = trees2["reference"]["points"][1]
    r = point["rates"]
    model = model_at(trees2, (r["D"], r["L"], r["T"]), solver_options={"schedule": "alerax"})
    model()
    assert model.family_log_likelihoods[0] == pytest.approx(point["loglik_nats"]["alerax_v1.4"]["my_family"],
                                                            rel=1e-12)


@pytest.mark.parametrize("origination", ["UNIFORM", "LCA"])
def test_nll_equals_gpurec_eval(simulated2, tmp_path, origination):
    run_cli("eval", "-s", simulated2["species"], "-f", simulated2["families"], "--d", 0.05, "--l", 0.2, "--t",
            0.02, "--origination", origination, "--device", "cpu", "-p", tmp_path)
    result = json.loads((tmp_path / "result.json").read_text())
    assert result["options"]["origination"] == origination
    model = gpurec.GeneReconModel(species_tree=simulated2["species"], families=simulated2["families"],
                                  rates=(0.05, 0.2, 0.02), device="cpu", origination=origination)
    assert model.family_names == [f["name"] for f in result["families"]]
    nll = model()
    # The same engine on the same input: the same bits.
    assert nll == result["total"]["nll_bits"]
    assert list(model.family_log_likelihoods) == [f["ll_nats"] for f in result["families"]]


@pytest.mark.parametrize("flags", [["-r", "UndatedDL"], ["--no-dup"], ["--no-dl", "--no-tl"]])
def test_model_variants_equal_gpurec_eval(simulated2, tmp_path, flags):
    run_cli("eval", "-s", simulated2["species"], "-f", simulated2["families"], "--d", 0.05, "--l", 0.2, "--t",
            0.02, *flags, "--device", "cpu", "-p", tmp_path)
    result = json.loads((tmp_path / "result.json").read_text())
    keywords = {"rec_model": "UndatedDL"} if flags == ["-r", "UndatedDL"] else {f[2:].replace("-", "_"): True
                                                                                  for f in flags}
    model = gpurec.GeneReconModel(species_tree=simulated2["species"], families=simulated2["families"],
                                  rates=(0.05, 0.2, 0.02), device="cpu", **keywords)
    assert model() == result["total"]["nll_bits"]
    _, grad = model.value_and_grad()
    absent = 2 if "rec_model" in keywords else 0 if "no_dup" in keywords else None
    if absent is not None:
        assert grad[absent] == 0.0  # the rate the model lacks is frozen
    plain = gpurec.GeneReconModel(species_tree=simulated2["species"], families=simulated2["families"],
                                  rates=(0.05, 0.2, 0.02), device="cpu")
    assert abs(plain() - model()) > 1e-6


def test_reldated_equals_gpurec_eval(simulated2, tmp_path):
    run_cli("eval", "-s", simulated2["species"], "-f", simulated2["families"], "--d", 0.05, "--l", 0.2, "--t",
            0.02, "--transfer-constraint", "RELDATED", "--device", "cpu", "-p", tmp_path)
    result = json.loads((tmp_path / "result.json").read_text())
    assert result["options"]["transfer_constraint"] == "RELDATED"
    model = gpurec.GeneReconModel(species_tree=simulated2["species"], families=simulated2["families"],
                                  rates=(0.05, 0.2, 0.02), device="cpu", transfer_constraint="RELDATED")
    assert model() == result["total"]["nll_bits"]
    plain = gpurec.GeneReconModel(species_tree=simulated2["species"], families=simulated2["families"],
                                  rates=(0.05, 0.2, 0.02), device="cpu")
    assert abs(plain() - model()) > 1e-6


def test_refused_model_variants_raise(simulated2):
    with pytest.raises(ValueError, match="--no-dup cannot be used with --no-tl"):
        gpurec.GeneReconModel(species_tree=simulated2["species"], families=simulated2["families"], device="cpu",
                              no_dup=True, no_tl=True)


@pytest.mark.parametrize("mode,shape", [("global", (3,)), ("specieswise", (37, 3)), ("genewise", (3, 3))])
def test_gradient_matches_central_differences(simulated2, mode, shape):
    model = gpurec.GeneReconModel(species_tree=simulated2["species"], families=simulated2["families"], mode=mode,
                                  rates=(0.05, 0.2, 0.02), device="cpu")
    rng = np.random.default_rng(7)
    model.theta = model.theta + rng.uniform(-0.5, 0.5, size=model.theta.shape)
    assert model.theta.shape == shape
    nll, grad = model.value_and_grad()
    assert grad.shape == shape
    assert nll == model()  # the gradient pass does not change the value
    base = model.theta.copy()
    h = 1e-5
    # A sample of components (all for global): each a two-point central difference.
    flat = [int(i) for i in rng.choice(base.size, size=min(base.size, 9), replace=False)]
    for i in flat:
        step = np.zeros(base.size)
        step[i] = h
        model.theta = base + step.reshape(shape)
        up = model()
        model.theta = base - step.reshape(shape)
        down = model()
        assert grad.reshape(-1)[i] == pytest.approx((up - down) / (2 * h), rel=1e-5, abs=1e-7)


def test_theta_of_the_wrong_shape_is_refused(trees2):
    model = model_at(trees2, (0.1, 0.1, 0.1))
    model.theta = np.zeros(4)
    with pytest.raises(ValueError, match="theta has 4 values; the global mode of this model needs 3"):
        model()


@pytest.mark.parametrize("mode,cli_mode", [("global", "GLOBAL"), ("specieswise", "PER-SPECIES"),
                                           ("genewise", "PER-FAMILY")])
def test_nll_and_gradient_norm_equal_the_first_row_of_gpurec_optimize(simulated2, tmp_path, mode, cli_mode):
    run_cli("optimize", "-s", simulated2["species"], "-f", simulated2["families"], "--device", "cpu",
            "--max-iter", 1, "--model-parametrization", cli_mode, "-p", tmp_path)
    header, first = (tmp_path / "trace.csv").read_text().splitlines()[:2]
    row = dict(zip(header.split(","), first.split(",")))
    assert row["iteration"] == "0"
    model = gpurec.GeneReconModel(species_tree=simulated2["species"], families=simulated2["families"], mode=mode,
                                  device="cpu")
    nll, grad = model.value_and_grad()
    assert nll == float(row["nll_bits"])
    # The trace's grad_norm is the max norm (θ is inside the bounds: projection changes nothing),
    # printed with 6 significant digits.
    assert np.max(np.abs(grad)) == pytest.approx(float(row["grad_norm"]), rel=5e-6)

