"""gpurec.GeneReconModel without torch: θ is a NumPy array, the NLL a float."""
import numpy as np

from .engine_state import EngineState
from .sampling import sample_reconciliations


class GeneReconModel(EngineState):
    """θ (log2 rates: [3] global, [S, 3] specieswise, [F, 3] genewise) with the engine that scores it.

    extra holds the engine's entries after the rate rows (origination weights, highway rates, the
    speciation shape α; names in extra_names), empty when the model has none.
    model() is the total NLL in bits; value_and_grad() adds d NLL / dθ (and d NLL / d extra).
    """

    def __init__(self, species_tree, gene_trees=None, **kwargs):
        super().__init__(species_tree, gene_trees, **kwargs)
        self.theta = self.engine.initial_theta()
        self.extra = self.engine.initial_extra()
        self.last_evaluation = None

    def __call__(self):
        self.last_evaluation = self.evaluate(self.theta, self.extra, False)
        return self.last_evaluation["nll_bits"]

    def value_and_grad(self):
        """(nll, grad_theta), or (nll, grad_theta, grad_extra) when the model has extra entries."""
        result = self.last_evaluation = self.evaluate(self.theta, self.extra, True)
        if len(self.extra) == 0:
            return result["nll_bits"], result["gradient"]
        return result["nll_bits"], result["gradient"], result["gradient_extra"]

    @property
    def extra_names(self):
        return self.engine.extra_names

    @property
    def family_log_likelihoods(self):
        """Per-family natural-log likelihoods of the last evaluation (None before one)."""
        return None if self.last_evaluation is None else self.last_evaluation["family_log_likelihoods"]

    @property
    def family_names(self):
        return self.engine.family_names

    @property
    def species_names(self):
        return self.engine.species_names

    def sample_reconciliations(self, samples=100, seed=123, families=None, min_rate=1e-10, max_rate=2.0):
        return sample_reconciliations(self, samples, seed, families, min_rate, max_rate)

    def theta_array(self):
        """θ as a float64 NumPy array (what the engine reads)."""
        return np.ascontiguousarray(self.theta, dtype=np.float64)

    def extra_array(self):
        return np.ascontiguousarray(self.extra, dtype=np.float64)
