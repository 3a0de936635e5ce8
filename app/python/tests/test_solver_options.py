"""SolverOptions: keywords, dicts and attributes checked with the CLI's ranges; changes take effect."""
import pytest

import gpurec
from conftest import cli_failure


def test_keywords_dict_and_attributes_set_the_knobs():
    options = gpurec.SolverOptions(e_max_iter=2000, e_tol=1e-8, pi_iters=6, neumann_terms=3, bicgstab_max_iter=500)
    assert (options.e_max_iter, options.e_tol, options.pi_iters) == (2000, 1e-8, 6)
    assert (options.neumann_terms, options.bicgstab_max_iter) == (3, 500)
    options.e_tol = 1e-10
    options.schedule = "alerax"
    options.use_adjoint_pruning = True
    assert (options.e_tol, options.schedule, options.use_adjoint_pruning) == (1e-10, "alerax", True)
    from_dict = gpurec.SolverOptions({"pi_tol": 1e-12, "threads": 2})
    assert from_dict.to_dict()["pi_tol"] == 1e-12 and from_dict.threads == 2
    assert set(from_dict.to_dict()) == {name for name, _, _ in gpurec.SolverOptions.info()}


def test_out_of_range_values_fail_with_the_cli_message(trees2):
    cli = cli_failure("eval", "-s", trees2["species"], "-f", trees2["families"], "--solver", "e_tol=0.5")
    expected = "solver option e_tol = 0.5 is outside its range 0..1e-2"
    assert expected in cli
    options = gpurec.SolverOptions()
    with pytest.raises(ValueError) as error:
        options.e_tol = 0.5
    assert str(error.value) == expected
    assert options.e_tol == 1e-15  # unchanged
    with pytest.raises(ValueError, match="solver option pi_iters expects an integer, got '2.5'"):
        gpurec.SolverOptions(pi_iters=2.5)
    with pytest.raises(ValueError, match="unknown solver option 'e_toll'"):
        gpurec.SolverOptions({"e_toll": 1e-9})
    with pytest.raises(AttributeError):
        options.e_toll = 1e-9
    with pytest.raises(ValueError, match="unknown schedule 'fast'"):
        options.schedule = "fast"


def test_configure_solver_is_all_or_nothing(trees2):
    model = gpurec.GeneReconModel(species_tree=trees2["species"], gene_trees=[trees2["gene"]], device="cpu")
    with pytest.raises(ValueError, match="bicgstab_max_iter"):
        model.configure_solver(e_tol=1e-9, bicgstab_max_iter=-1)
    assert model.solver_options.e_tol == 1e-15
    model.configure_solver({"e_tol": 1e-9}, pi_iters=7)
    assert (model.solver_options.e_tol, model.solver_options.pi_iters) == (1e-9, 7)


def test_knobs_changed_between_evaluations_take_effect(trees2):
    point = trees2["reference"]["points"][0]
    model = gpurec.GeneReconModel(species_tree=trees2["species"], gene_trees=[trees2["gene"]], device="cpu")
    converged = model()
    assert model.family_log_likelihoods[0] == pytest.approx(point["loglik_nats"]["converged"]["my_family"],
                                                            rel=1e-10)
    model.solver_options.schedule = "alerax"  # attribute assignment on the model's own options
    model()
    assert model.family_log_likelihoods[0] == pytest.approx(point["loglik_nats"]["alerax_v1.4"]["my_family"],
                                                            rel=1e-12)
    model.solver_options = {"e_max_iter": 1}
    warm = model()  # one E iteration from the converged E of the last evaluation: still close
    assert warm == pytest.approx(converged, rel=1e-6)
    model.clear_warm_starts()
    with pytest.warns(RuntimeWarning, match="E fixed point stopped early"):
        truncated = model()  # one iteration from E = 0
    assert abs(truncated - converged) > 1e-3
    assert model.last_evaluation["stats"]["stopped_early"]
    model.solver_options = gpurec.SolverOptions()
    model.clear_warm_starts()
    model.replan_batches(memory_bytes=1e9, max_families_per_batch=1)
    assert model() == pytest.approx(converged, rel=1e-13)
