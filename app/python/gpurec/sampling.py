"""sample_reconciliations: `gpurec sample` for a model at its current θ."""
from . import _engine


def sample_reconciliations(model, samples=100, seed=123, families=None, min_rate=1e-10, max_rate=2.0):
    """Reconciliations drawn from their posterior at the model's θ (theta and extra), as `gpurec sample
    --seed` draws them.

    Returns one dict per family: "family", "log_likelihood" (nats), "reconciliations" (each with
    "nodes" (name, parent, children, events of type/species/recipient, branch_length), "root",
    "origin_species" and "recphyloxml", the text of gpurec sample's <family>_sample_<i>.xml) and
    "recphyloxml" (the text of its --xml-per-family <family>_samples.xml).
    """
    names = [] if families is None else ([families] if isinstance(families, str) else list(families))
    return _engine.sample(model.engine, model.theta_array(), model.extra_array(), model.solver_options,
                          int(samples), int(seed), names, float(min_rate), float(max_rate))
