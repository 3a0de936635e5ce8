"""The CLI's model options in the Python API: fitted origination weights, speciation categories,
transfer highways, pairwise transfers, a pruned species tree and missing-gene fractions; the θ
entries after the rate rows (`extra`) against `gpurec eval` and finite differences."""
import json
import math

import numpy as np
import pytest

import gpurec
from conftest import cli_failure, run_cli

RATES = (0.05, 0.2, 0.02)
TIGHT = {"e_max_iter": 2000, "e_tol": 1e-15}
OPTIMIZE_REFUSED = ("--origination OPTIMIZE cannot be used with --model-parametrization GLOBAL or "
                    "--model-parametrization PER-FAMILY")


def model_at(inputs, rates=RATES, **kwargs):
    return gpurec.GeneReconModel(species_tree=inputs["species"], gene_trees=[inputs["gene"]], rates=rates,
                                 device="cpu", **kwargs)


def eval_nll(inputs, folder, *flags):
    """`gpurec eval`'s NLL in bits with flags, at RATES unless they name a rates file."""
    rates = [] if "--rates-file" in flags else ["--d", RATES[0], "--l", RATES[1], "--t", RATES[2]]
    run_cli("eval", "-s", inputs["species"], "-f", inputs["families"], *rates, *flags, "--device", "cpu", "-p",
            folder)
    return json.loads((folder / "result.json").read_text())["total"]["nll_bits"]


def assert_extra_gradient(model, entries, h=1e-5):
    """d NLL / d extra[i] for each i of entries against a two-point central difference."""
    _, _, grad = model.value_and_grad()
    base = model.extra.copy()
    for i in entries:
        values = []
        for sign in (1, -1):
            model.extra = base.copy()
            model.extra[i] += sign * h
            values.append(model())
        model.extra = base
        assert grad[i] == pytest.approx((values[0] - values[1]) / (2 * h), rel=1e-6, abs=1e-9), \
            model.extra_names[i]


@pytest.fixture
def highways(tmp_path):
    path = tmp_path / "highways.txt"
    path.write_text("src, dest, proba\n5, 13, 0.2\n11, 9, 0.05\n")
    return path


def test_plain_models_have_no_extra_entries(trees2):
    model = model_at(trees2)
    assert model.extra.shape == (0,) and model.extra_names == []
    assert len(model.value_and_grad()) == 2


def test_optimize_has_one_weight_per_node_and_equal_weights_are_uniform_origination(trees2):
    model = model_at(trees2, mode="specieswise", origination="OPTIMIZE")
    species = model.species_names
    assert model.theta.shape == (15, 3)
    assert model.extra_names == [f"O {name}" for name in species]
    # AleRax's start: every weight 1/S.
    assert np.allclose(model.extra, math.log2(1 / 15), rtol=0, atol=1e-15)
    uniform = model_at(trees2, mode="specieswise")
    assert model() == pytest.approx(uniform(), rel=1e-12)
    model.extra = model.extra + 3.0  # only their ratios matter
    assert model() == pytest.approx(uniform(), rel=1e-12)


def test_optimize_with_unequal_weights_equals_gpurec_eval(trees2, tmp_path):
    model = model_at(trees2, mode="specieswise", origination="OPTIMIZE")
    rng = np.random.default_rng(3)
    model.theta = model.theta + rng.uniform(-1, 1, size=model.theta.shape)
    model.extra = rng.uniform(-3, 1, size=model.extra.shape)
    rates, weights = np.exp2(model.theta), np.exp2(model.extra)
    lines = ["node D L T O"] + [f"{name} {d!r} {l!r} {t!r} {o!r}" for name, (d, l, t), o
                                in zip(model.species_names, rates, weights / weights.sum())]
    (tmp_path / "model_parameters.txt").write_text("\n".join(lines) + "\n")
    expected = eval_nll(trees2, tmp_path, "--origination", "OPTIMIZE", "--rates-file",
                        tmp_path / "model_parameters.txt")
    assert model() == pytest.approx(expected, rel=1e-12)
    assert abs(model() - model_at(trees2, mode="specieswise", origination="OPTIMIZE")()) > 1e-3


def test_origination_weight_gradients_match_central_differences(trees2):
    model = model_at(trees2, mode="specieswise", origination="OPTIMIZE", solver_options=TIGHT)
    model.extra = np.random.default_rng(5).uniform(-3, 0, size=model.extra.shape)
    assert_extra_gradient(model, [0, 4, 9, 14])


def test_one_speciation_category_is_the_plain_model(trees2):
    model = model_at(trees2, speciation_gamma_categories=1, gamma_alpha=0.5)
    assert model.extra_names == []
    assert model() == model_at(trees2)()


def test_speciation_categories_equal_gpurec_eval_and_alpha_has_its_gradient(trees2, tmp_path):
    model = model_at(trees2, speciation_gamma_categories=4, gamma_alpha=0.5, solver_options=TIGHT)
    assert model.extra_names == ["alpha"] and model.extra[0] == -1.0
    assert "4 speciation categories" in model.engine.device
    expected = eval_nll(trees2, tmp_path, "--speciation-gamma-categories", 4, "--gamma-alpha", 0.5)
    assert model() == pytest.approx(expected, rel=1e-12)
    assert abs(model() - model_at(trees2)()) > 1e-3
    assert_extra_gradient(model, [0])
    low, high = model.engine.extra_bounds(1e-10, 2.0)
    assert low[0] == math.log2(0.0201) and high[0] == math.log2(100.0)


def test_highways_equal_gpurec_eval_with_their_gradients(trees2, tmp_path, highways):
    model = model_at(trees2, highways_file=highways, solver_options=TIGHT)
    assert model.extra_names == ["highway 1", "highway 2"]
    assert model.extra == pytest.approx(np.log2([0.2, 0.05]), rel=1e-15)
    expected = eval_nll(trees2, tmp_path, "--highways-file", highways)
    assert model() == pytest.approx(expected, rel=1e-12)
    assert abs(model() - model_at(trees2)()) > 1e-3
    assert_extra_gradient(model, [0, 1])


def test_highways_with_optimize_and_categories_keep_the_engine_order(trees2, highways):
    model = model_at(trees2, mode="specieswise", origination="OPTIMIZE", highways_file=highways,
                     speciation_gamma_categories=2)
    assert model.extra_names == [f"O {s}" for s in model.species_names] + ["highway 1", "highway 2", "alpha"]
    nll, grad_theta, grad_extra = model.value_and_grad()
    assert grad_theta.shape == (15, 3) and grad_extra.shape == (18,)
    assert nll == model()


def test_pairwise_transfers_start_at_the_uniform_model_with_their_gradients(trees2):
    model = model_at(trees2, pairwise_transfers=True, solver_options=TIGHT)
    names = model.extra_names
    assert len(names) > 15 and names[0] == "highway 1"
    assert model() == pytest.approx(model_at(trees2, solver_options=TIGHT)(), rel=1e-12)
    model.extra = model.extra + np.random.default_rng(9).uniform(-1, 1, size=model.extra.shape)
    assert_extra_gradient(model, [0, len(names) // 2, len(names) - 1])


def test_pruned_species_tree_and_fraction_missing_equal_gpurec_eval(trees2, tmp_path):
    # A family on 5 of the 8 species leaves, so that pruning changes the tree it is reconciled with.
    partial = {"species": trees2["species"], "gene": tmp_path / "partial.nwk", "families": tmp_path / "families.txt"}
    partial["gene"].write_text("((5_1,(11_1,12_1)),((13_1,14_1),13_2));\n")
    partial["families"].write_text(f"[FAMILIES]\n- partial\ngene_tree = {partial['gene']}\n")
    pruned = model_at(partial, prune_species_tree=True)
    assert pruned() == pytest.approx(eval_nll(partial, tmp_path / "pruned", "--prune-species-tree"), rel=1e-12)
    assert abs(pruned() - model_at(partial)()) > 1e-3
    missing = tmp_path / "missing.txt"
    missing.write_text("".join(f"{leaf} {0.3 if leaf == 5 else 0.1}\n" for leaf in (5, 8, 9, 10, 11, 12, 13, 14)))
    model = model_at(trees2, fraction_missing_file=missing)
    expected = eval_nll(trees2, tmp_path / "missing", "--fraction-missing-file", missing)
    assert model() == pytest.approx(expected, rel=1e-12)
    assert abs(model() - model_at(trees2)()) > 1e-3


def test_samples_read_the_extra_entries(trees2, highways):
    model = model_at(trees2, highways_file=highways)
    model.extra = model.extra + 2.0
    drawn = model.sample_reconciliations(samples=2, seed=1)
    model()
    assert drawn[0]["log_likelihood"] == pytest.approx(model.family_log_likelihoods[0], rel=1e-12)


def test_bad_options_raise_the_engine_messages(trees2, tmp_path):
    for mode in ("global", "genewise"):
        with pytest.raises(ValueError) as error:
            model_at(trees2, mode=mode, origination="OPTIMIZE")
        assert str(error.value) == OPTIMIZE_REFUSED
    assert OPTIMIZE_REFUSED in cli_failure("optimize", "-s", trees2["species"], "-f", trees2["families"],
                                           "--origination", "OPTIMIZE", "-p", tmp_path)
    with pytest.raises(ValueError, match="--speciation-gamma-categories can only take values >= 1"):
        model_at(trees2, speciation_gamma_categories=0)
    with pytest.raises(ValueError, match="--pairwise-transfers can only be used with --rec-model UndatedDTL"):
        model_at(trees2, pairwise_transfers=True, rec_model="UndatedDL")
    nowhere = tmp_path / "nowhere.txt"
    with pytest.raises(gpurec.InputError, match=str(nowhere)) as error:
        model_at(trees2, highways_file=nowhere)
    assert error.value.file == str(nowhere)


def test_extra_of_the_wrong_size_is_refused(trees2):
    model = model_at(trees2, speciation_gamma_categories=2)
    model.extra = np.zeros(2)
    with pytest.raises(ValueError, match=r"extra has 2 values; this model has 1 \(extra_names lists them\)"):
        model()


def test_torch_backward_fills_theta_and_extra_grads(trees2, highways):
    torch = pytest.importorskip("torch")
    import gpurec.torch as gtorch
    options = {"mode": "specieswise", "origination": "OPTIMIZE", "highways_file": highways,
               "speciation_gamma_categories": 3}
    module = gtorch.GeneReconModel(species_tree=trees2["species"], gene_trees=[trees2["gene"]], device="cpu",
                                   rates=RATES, **options)
    assert isinstance(module.extra, torch.nn.Parameter) and module.extra.shape == (18,)
    assert [p for p in module.parameters()] == [module.theta, module.extra]
    with torch.no_grad():
        module.extra[:15].copy_(torch.linspace(-3, 0, 15, dtype=torch.float64))
    loss = module()
    loss.backward()
    model = model_at(trees2, **options)
    assert module.extra_names == model.extra_names
    model.extra = module.extra.detach().numpy().copy()
    nll, grad_theta, grad_extra = model.value_and_grad()
    assert loss.item() == nll
    assert np.array_equal(module.theta.grad.numpy(), grad_theta)
    assert np.array_equal(module.extra.grad.numpy(), grad_extra)
    drawn = module.sample_reconciliations(samples=1, seed=2)
    assert drawn[0]["log_likelihood"] == pytest.approx(module.family_log_likelihoods[0], rel=1e-12)


def test_torch_plain_models_keep_theta_as_their_only_parameter(trees2):
    torch = pytest.importorskip("torch")
    import gpurec.torch as gtorch
    module = gtorch.GeneReconModel(species_tree=trees2["species"], gene_trees=[trees2["gene"]], device="cpu")
    assert [p for p in module.parameters()] == [module.theta] and module.extra.shape == (0,)
    module().backward()
    assert module.theta.grad is not None and module.extra_names == []
    assert not isinstance(module.extra, torch.nn.Parameter)
